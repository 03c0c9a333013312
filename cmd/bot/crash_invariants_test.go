//go:build unix

package main

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// What a crash test checks once the queue is idle: every surface the queue
// drives on GitHub and every promise it made, against the fake's ground
// truth and the bot's database. Each invariant is one function with a
// failure message naming what is wrong.

// crashSettle bounds how long the "eventually" invariants may take to hold
// once every entry ended (the queue repairs surfaces on later Syncs). Ten
// intervals proved too tight after a two-minute outage: the batched
// deletion of the last dead test branch was still in flight at the tenth
// second (seed 1795691018886602668 once; it passed on replay), likely
// waiting for the per-minute write budget (80 a minute, GitHub's numbers)
// that the writes refused during the outage had used; so the bound is
// more than a minute.
const crashSettle = 90 * crashReconcile

// crashQuiet is how long the queue must stay quiet, short of ending every
// entry, before waitEnded gives up: longer than the webhook inbox's longest
// wait between two attempts of a delivery (16 s before the fifth).
const crashQuiet = 20 * crashReconcile

// Names and texts the queue puts on GitHub.
const (
	stickyMarkerPrefix = "<!-- merge-queue-status " // + queue key + " -->"
	checkRunName       = "Merge Queue (" + crashBranch + ")"
	stateLabelPrefix   = "mq:"
	failedMention      = "this pull request failed in the merge queue"
	removedMention     = "this pull request was removed from the merge queue"
)

// crashOutcome is what a crash test expects of its PRs, and the entries
// it found once they ended.
type crashOutcome struct {
	// Merged must each be merged exactly once; Failed (their CI fails) must
	// end failed and never land.
	Merged, Failed []int
	// How each PR was submitted.
	How map[int]submitMethod
	// Initial is the number of commits on main before the test.
	Initial int

	entries  map[int]entryView // the PRs whose entry ended
	notEnded error             // why waiting for the others stopped
}

// ended lists the PRs whose entry ended, in order: the surfaces of the
// others are not checked (checkEntriesEndAsExpected reports them).
func (o *crashOutcome) ended() []int {
	var out []int
	for _, pr := range o.prs() {
		if _, ok := o.entries[pr]; ok {
			out = append(out, pr)
		}
	}
	return out
}

func (o *crashOutcome) prs() []int {
	out := append(append([]int{}, o.Merged...), o.Failed...)
	sort.Ints(out)
	return out
}

// wantState is the final state an entry must reach.
func (o *crashOutcome) wantState(pr int) string {
	if slices.Contains(o.Failed, pr) {
		return "failed"
	}
	return "merged"
}

// invariant is one property of what the queue leaves behind.
type invariant struct {
	name  string
	check func(h *crashHarness, o *crashOutcome) error
}

// liveInvariants are read from the fake (and the REST API) while the bot
// still runs; they must hold within crashSettle once every entry ended.
var liveInvariants = []invariant{
	{"entries-end-as-expected", checkEntriesEndAsExpected},
	{"no-duplicate-sticky-comments", checkNoDuplicateStickyComments},
	{"sticky-comment-shows-final-state", checkStickyCommentShowsFinalState},
	{"no-check-run-left-open", checkNoCheckRunLeftOpen},
	{"check-run-concludes-final-state", checkCheckRunConcludes},
	{"labels-show-final-state", checkLabelsShowFinalState},
	{"failure-mentioned-once", checkFailureMentionedOnce},
	{"no-mq-refs-when-idle", checkNoMQRefs},
}

// finalInvariants are checked once the last process stopped.
var finalInvariants = []invariant{
	{"merged-once-in-queue-order", checkMergedOnceInQueueOrder},
	{"landed-trees-passed-ci", checkLandedTreesPassedCI},
	{"acknowledged-deliveries-processed", checkAcknowledgedDeliveriesProcessed},
}

// finish waits until every PR's entry ended (and CI and webhooks are
// idle), checks the live invariants until they hold or crashSettle
// passes, stops the bot gracefully and checks the final invariants.
// Failures are test errors.
func (h *crashHarness) finish(o *crashOutcome) {
	h.t.Helper()
	entries, notEnded := h.waitEnded(o.prs(), crashIdleWait)
	o.entries, o.notEnded = entries, notEnded
	// Wait for the live invariants to hold.
	failures := map[string]error{}
	settled := pollUntil(crashSettle, func() bool {
		clear(failures)
		holds := true
		for _, inv := range liveInvariants {
			if err := inv.check(h, o); err != nil {
				failures[inv.name] = err
				holds = false
			}
		}
		return holds
	})
	if settled != nil {
		h.t.Logf("live invariants still broken %v after every entry ended", crashSettle)
	}
	if err := h.stop(); err != nil {
		h.t.Errorf("final stop: %v", err)
	}
	for _, inv := range finalInvariants {
		if err := inv.check(h, o); err != nil {
			failures[inv.name] = err
		}
	}
	starts, kills := h.counts()
	h.t.Logf("%d bot processes, %d killed by the harness; exits: %v", starts, kills, h.exitsSoFar())
	var summary []string
	for _, inv := range append(append([]invariant{}, liveInvariants...), finalInvariants...) {
		if err := failures[inv.name]; err != nil {
			summary = append(summary, inv.name+"=FAIL")
			h.t.Errorf("invariant %s: %v", inv.name, err)
		} else {
			summary = append(summary, inv.name+"=ok")
		}
	}
	h.t.Logf("invariants: %s", strings.Join(summary, " "))
}

// botComments lists the bot's comments on pr containing substr.
func (h *crashHarness) botComments(pr int, substr string) []string {
	var out []string
	for _, c := range h.fake.CommentsContaining(crashRepoOwner, crashRepoName, pr, substr) {
		if c.GetUser().GetLogin() == fakegithub.BotLogin {
			out = append(out, fmt.Sprintf("%d: %q", c.GetID(), firstLines(c.GetBody(), 3)))
		}
	}
	return out
}

// checkEntriesEndAsExpected: every PR's entry ended in the state the test
// expects (merged, or failed for a PR whose CI fails).
func checkEntriesEndAsExpected(h *crashHarness, o *crashOutcome) error {
	var errs []error
	if o.notEnded != nil {
		errs = append(errs, o.notEnded)
	}
	for _, pr := range o.prs() {
		e, ok := o.entries[pr]
		if !ok {
			continue // reported by notEnded
		}
		if want := o.wantState(pr); e.State != want {
			errs = append(errs, fmt.Errorf("#%d ended %s (%s: %s), want %s", pr, e.State, e.StateReason, e.StateReasonDetail, want))
		}
	}
	return errors.Join(errs...)
}

// checkNoDuplicateStickyComments: at most one comment per PR carries the
// queue's status marker.
func checkNoDuplicateStickyComments(h *crashHarness, o *crashOutcome) error {
	var errs []error
	for _, pr := range o.ended() {
		if got := h.botComments(pr, stickyMarkerPrefix); len(got) > 1 {
			errs = append(errs, fmt.Errorf("#%d has %d sticky status comments, want 1: %s", pr, len(got), strings.Join(got, "; ")))
		}
	}
	return errors.Join(errs...)
}

// checkStickyCommentShowsFinalState: a PR's sticky comment, if it has one
// (one that went through without a hitch has none: its check run says
// it), shows the entry's final state ("state `merged`").
func checkStickyCommentShowsFinalState(h *crashHarness, o *crashOutcome) error {
	var errs []error
	for _, pr := range o.ended() {
		var bodies []string
		for _, c := range h.fake.CommentsContaining(crashRepoOwner, crashRepoName, pr, stickyMarkerPrefix) {
			if c.GetUser().GetLogin() == fakegithub.BotLogin {
				bodies = append(bodies, c.GetBody())
			}
		}
		state := o.entries[pr].State
		switch {
		case len(bodies) == 0:
		case !strings.Contains(bodies[len(bodies)-1], "state `"+state+"`"):
			errs = append(errs, fmt.Errorf("#%d's sticky comment does not show state %s: %q", pr, state, firstLines(bodies[len(bodies)-1], 5)))
		}
	}
	return errors.Join(errs...)
}

// checkNoCheckRunLeftOpen: no "Merge Queue (main)" check run on the head of
// an ended entry is left queued or in progress.
func checkNoCheckRunLeftOpen(h *crashHarness, o *crashOutcome) error {
	var errs []error
	for _, pr := range o.ended() {
		e := o.entries[pr]
		for _, cr := range h.fake.CheckRunsNamed(crashRepoOwner, crashRepoName, e.PRSHA, checkRunName) {
			if st := cr.GetStatus(); st == "queued" || st == "in_progress" {
				errs = append(errs, fmt.Errorf("#%d (%s) has check run %d %q left %s", pr, e.State, cr.GetID(), checkRunName, st))
			}
		}
	}
	return errors.Join(errs...)
}

// checkCheckRunConcludes: the newest "Merge Queue (main)" check run on the
// head of an ended entry is completed with the entry's conclusion.
func checkCheckRunConcludes(h *crashHarness, o *crashOutcome) error {
	want := map[string]string{"merged": "success", "failed": "failure", "cancelled": "cancelled"}
	var errs []error
	for _, pr := range o.ended() {
		e := o.entries[pr]
		runs := h.fake.CheckRunsNamed(crashRepoOwner, crashRepoName, e.PRSHA, checkRunName)
		if len(runs) == 0 {
			errs = append(errs, fmt.Errorf("#%d has no %q check run on %s", pr, checkRunName, e.PRSHA))
			continue
		}
		last := runs[len(runs)-1]
		if last.GetStatus() != "completed" || last.GetConclusion() != want[e.State] {
			errs = append(errs, fmt.Errorf("#%d (%s): newest check run %d is %s/%s, want completed/%s (%d runs)",
				pr, e.State, last.GetID(), last.GetStatus(), last.GetConclusion(), want[e.State], len(runs)))
		}
	}
	return errors.Join(errs...)
}

// checkLabelsShowFinalState: with state labels on, an ended entry's PR
// carries exactly the label of its final state, and no enqueue label.
func checkLabelsShowFinalState(h *crashHarness, o *crashOutcome) error {
	var errs []error
	for _, pr := range o.ended() {
		got, err := h.fake.PR(crashRepoOwner, crashRepoName, pr)
		if err != nil {
			return err
		}
		want := stateLabelPrefix + strings.ReplaceAll(o.entries[pr].State, "_", "-")
		var state []string
		for _, l := range got.Labels {
			switch name := l.GetName(); {
			case name == crashEnqueueTag:
				errs = append(errs, fmt.Errorf("#%d (%s) keeps the enqueue label %q", pr, o.entries[pr].State, name))
			case strings.HasPrefix(name, stateLabelPrefix):
				state = append(state, name)
			}
		}
		if len(state) != 1 || state[0] != want {
			errs = append(errs, fmt.Errorf("#%d has state labels %v, want [%s]", pr, state, want))
		}
	}
	return errors.Join(errs...)
}

// checkFailureMentionedOnce: a failed entry's submitter is told once; a
// merged one never.
func checkFailureMentionedOnce(h *crashHarness, o *crashOutcome) error {
	var errs []error
	for _, pr := range o.ended() {
		failed := h.botComments(pr, failedMention)
		removed := h.botComments(pr, removedMention)
		want := 0
		if o.entries[pr].State == "failed" {
			want = 1
		}
		if len(failed) != want || len(removed) != 0 {
			errs = append(errs, fmt.Errorf("#%d (%s) has %d failure and %d removal mentions, want %d and 0: %s",
				pr, o.entries[pr].State, len(failed), len(removed), want, strings.Join(append(failed, removed...), "; ")))
		}
	}
	return errors.Join(errs...)
}

// checkNoMQRefs: once the queue is idle no scratch (mq-temp/) or test
// (mq-merge/) branch is left, but the queue's lane (mq-temp/lane-<id>),
// which it keeps so that a run built on the last one moves no ref.
func checkNoMQRefs(h *crashHarness, _ *crashOutcome) error {
	var left []string
	for _, prefix := range []string{"mq-temp/", "mq-merge/"} {
		for _, b := range h.fake.BranchesWithPrefix(crashRepoOwner, crashRepoName, prefix) {
			if !strings.HasPrefix(b, "mq-temp/lane-") { // the queue's own scratch lane, kept between builds
				left = append(left, b)
			}
		}
	}
	if len(left) > 0 {
		var history []string
		for _, b := range left {
			for _, c := range h.fake.RefHistory(crashRepoOwner, crashRepoName, "refs/heads/"+b) {
				history = append(history, c.String())
			}
		}
		return fmt.Errorf("%d refs left once idle: %v; their history: %s", len(left), left, strings.Join(history, "; "))
	}
	return nil
}

// checkMergedOnceInQueueOrder: main's first-parent history since the test
// began is exactly one merge commit per PR that should merge (none for
// the failing ones, no other commit), and it is the queue's merge log:
// same PRs in the same order, each landing on the previous one.
func checkMergedOnceInQueueOrder(h *crashHarness, o *crashOutcome) error {
	landed, err := h.fake.Landed(crashRepoOwner, crashRepoName, crashBranch)
	if err != nil {
		return err
	}
	if len(landed) < o.Initial {
		return fmt.Errorf("main has %d commits, fewer than the %d it started with", len(landed), o.Initial)
	}
	var errs []error
	seen := map[int]int{}
	var order []int
	for _, c := range landed[o.Initial:] {
		if c.PR == 0 {
			errs = append(errs, fmt.Errorf("main gained commit %s that is no PR's merge", c.SHA))
			continue
		}
		seen[c.PR]++
		order = append(order, c.PR)
	}
	for _, pr := range o.Merged {
		if seen[pr] != 1 {
			errs = append(errs, fmt.Errorf("#%d landed %d times on main, want once", pr, seen[pr]))
		}
	}
	for _, pr := range o.Failed {
		if seen[pr] != 0 {
			errs = append(errs, fmt.Errorf("#%d (CI fails) landed on main", pr))
		}
	}
	log, err := h.mergeLog()
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	var logged []int
	for _, m := range log {
		logged = append(logged, m.PR)
	}
	if !slices.Equal(logged, order) {
		errs = append(errs, fmt.Errorf("main landed PRs %v, the queue's merge log says %v", order, logged))
	} else {
		prev := ""
		if o.Initial > 0 {
			prev = landed[o.Initial-1].SHA
		}
		for i, m := range log {
			if c := landed[o.Initial+i]; m.Before != prev || m.After != c.SHA {
				errs = append(errs, fmt.Errorf("merge log #%d (PR #%d) %s→%s, main went %s→%s", i+1, m.PR, short(m.Before), short(m.After), short(prev), short(c.SHA)))
			}
			prev = landed[o.Initial+i].SHA
		}
	}
	return errors.Join(errs...)
}

// checkLandedTreesPassedCI: every commit main gained has the tree of a
// commit the simulated CI passed (the queue merges only what it tested).
func checkLandedTreesPassedCI(h *crashHarness, o *crashOutcome) error {
	passed := map[string]bool{}
	for _, r := range h.fake.CIRuns() {
		if r.Result != "success" {
			continue
		}
		tree, err := h.fake.TreeSHA(crashRepoOwner, crashRepoName, r.SHA)
		if err != nil {
			return err
		}
		passed[tree] = true
	}
	landed, err := h.fake.Landed(crashRepoOwner, crashRepoName, crashBranch)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range landed[min(o.Initial, len(landed)):] {
		tree, err := h.fake.TreeSHA(crashRepoOwner, crashRepoName, c.SHA)
		if err != nil {
			return err
		}
		if !passed[tree] {
			errs = append(errs, fmt.Errorf("main commit %s (PR #%d) has tree %s that no passing CI run tested", short(c.SHA), c.PR, short(tree)))
		}
	}
	return errors.Join(errs...)
}

// checkAcknowledgedDeliveriesProcessed: every webhook the bot answered
// with a 2xx is in its inbox, done, without a recorded error.
func checkAcknowledgedDeliveriesProcessed(h *crashHarness, _ *crashOutcome) error {
	stored, err := h.deliveries()
	if err != nil {
		return err
	}
	acked := h.fake.AcknowledgedDeliveries()
	var bad []string
	for _, d := range acked {
		name := d.Event
		if d.Action != "" {
			name += "." + d.Action
		}
		s, ok := stored[d.ID]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("%s %s acknowledged but not stored", name, d.ID))
		case !s.Done:
			bad = append(bad, fmt.Sprintf("%s %s stored but not processed (%d attempts)", name, d.ID, s.Attempts))
		case s.Error != "":
			bad = append(bad, fmt.Sprintf("%s %s given up after %d attempts: %s", name, d.ID, s.Attempts, s.Error))
		}
	}
	if len(bad) > 0 {
		shown := bad[:min(len(bad), 10)]
		return fmt.Errorf("%d of %d acknowledged deliveries not processed: %s", len(bad), len(acked), strings.Join(shown, "; "))
	}
	return nil
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

func short(sha string) string {
	if len(sha) > 10 {
		return sha[:10]
	}
	return sha
}

// elapsed formats how long since start, for logs.
func elapsed(start time.Time) string { return time.Since(start).Round(100 * time.Millisecond).String() }
