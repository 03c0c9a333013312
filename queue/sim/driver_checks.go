package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
)

// check asserts the invariants after a step:
//   - the World saw no violation (tested heads and trees only, no Bad PR
//     merged, no PR merged twice by the queue, test runs in flight within
//     concurrency + bisectionConcurrency);
//   - no PR is merged twice on GitHub;
//   - the queue has at most that many runs in progress;
//   - every PR the queue merged has its entry merged (merged_by_queue), and
//     every entry merged by the queue was merged on GitHub by it;
//   - no good PR without an excuse (pushed, closed, cancelled, conflicting,
//     flaked, timed out) failed;
//   - the queue did not pause itself (a landed tree differing from the
//     tested one), and merged nothing while paused.
func (d *Driver) check(where string) {
	if d.failure != nil {
		return
	}
	if v := d.world.Violations(); len(v) > 0 {
		d.fail("%s: invariant violated: %s", where, v[0])
		return
	}
	merged := d.world.Merged()
	seen := map[int]bool{}
	for _, n := range merged {
		if seen[n] {
			d.fail("%s: #%d merged twice on GitHub", where, n)
			return
		}
		seen[n] = true
	}
	if m := d.world.MaxInFlight(); m > d.bound {
		d.fail("%s: %d test runs were in flight at once, more than %d", where, m, d.bound)
		return
	}
	d.checkRuns(where)
	byQueue := map[int]bool{}
	for _, n := range d.world.MergedByQueue() {
		byQueue[n] = true
	}
	for _, n := range d.sortedPRs() {
		p, e := d.prs[n], d.entry(n)
		if e == nil {
			if byQueue[n] {
				d.fail("%s: the queue merged #%d, which was never submitted", where, n)
			}
			continue
		}
		switch {
		case byQueue[n] && (e.State != queue.StateMerged || e.StateReason != queue.ReasonMergedByQueue):
			d.fail("%s: the queue merged #%d but its entry is %s (%s)", where, n, e.State, e.StateReason)
		case !byQueue[n] && e.StateReason == queue.ReasonMergedByQueue:
			d.fail("%s: #%d is %s by the queue, but the queue never merged it on GitHub", where, n, e.State)
		case e.State == queue.StateMerged && !seen[n]:
			d.fail("%s: #%d is merged (%s) but was never merged on GitHub", where, n, e.StateReason)
		case e.State == queue.StateFailed && !p.bad && len(p.excused) == 0 &&
			!(d.faulted && e.StateReason == queue.ReasonGitHubAPIFailed && strings.HasPrefix(e.StateReasonDetail, "merge failed")):
			d.fail("%s: good #%d failed (%s: %s) though nothing excuses it", where, n, e.StateReason, e.StateReasonDetail)
		}
		if d.failure != nil {
			return
		}
	}
	q := d.queue()
	if q == nil {
		return
	}
	switch {
	case q.PausedReason != "":
		d.fail("%s: the queue paused itself: %s", where, q.PausedReason)
	case q.State != queue.QueuePaused:
		d.pausedMerges = -1
	case d.pausedMerges >= 0 && len(d.world.MergedByQueue()) > d.pausedMerges:
		d.fail("%s: the queue merged %v while paused", where, d.world.MergedByQueue()[d.pausedMerges:])
	}
}

// checkRuns asserts that the queue tests no more units at once than allowed.
func (d *Driver) checkRuns(where string) {
	runs, err := d.store.ListOpenRuns(d.ctx, d.q.ID)
	if err != nil {
		d.fail("%s: failed to list runs: %v", where, err)
		return
	}
	n := 0
	for _, r := range runs {
		if r.Status == queue.RunInProgress {
			n++
		}
	}
	if n > d.bound {
		d.fail("%s: %d runs in progress, more than %d", where, n, d.bound)
	}
}

// drainRounds bounds the drain: a settled queue is reached within this many
// rounds of "report every pending CI result, advance a minute".
func (d *Driver) drainRounds() int { return 60 + 12*len(d.prs) }

// drain reports every pending CI job with its intrinsic result (no flakes,
// no lost webhooks) and advances the clock, until every entry has ended
// (or waits not_ready on a PR that conflicts with the target), then checks
// the outcome of every PR.
func (d *Driver) drain() {
	d.logf("drain")
	if q := d.queue(); q != nil && q.State != queue.QueueRunning {
		d.setState(queue.QueueRunning)
	}
	for round := 0; ; round++ {
		if d.settled() {
			break
		}
		d.uploadMissingTargets()
		if round == d.drainRounds() {
			d.fail("the queue did not settle within %d drain rounds (liveness): %s", round, d.describeQueue())
			return
		}
		for _, job := range d.world.PendingCI() {
			d.reportCI(job.SHA, d.world.Intrinsic(job.SHA), false)
		}
		d.sync()
		d.check(fmt.Sprintf("drain round %d", round))
		d.advance(time.Minute)
		d.sync()
		d.check(fmt.Sprintf("drain round %d", round))
		if d.failure != nil {
			return
		}
	}
	d.logf("settled")
	d.checkOutcomes()
}

// uploadMissingTargets uploads the targets of active entries that have
// none for their submitted head (a lost upload).
func (d *Driver) uploadMissingTargets() {
	for _, e := range d.active() {
		if t, err := d.store.GetTargets(d.ctx, d.q.ID, e.PRNumber); err != nil || t.SHA != e.PRSHA {
			if d.world.PR(e.PRNumber).HeadSHA == e.PRSHA {
				d.uploadTargets(e.PRNumber)
			}
		}
	}
}

// settled reports whether every entry has ended, except not_ready ones
// whose PR conflicts with the target (they wait for a rebase).
func (d *Driver) settled() bool {
	for _, e := range d.active() {
		if e.State != queue.StateNotReady || !d.world.Dirty(e.PRNumber) {
			return false
		}
	}
	return true
}

// checkOutcomes asserts, once settled: every good PR that was submitted and
// has no excuse is merged by the queue; no Bad PR is merged; a PR merged by
// hand while in the queue ends merged (merged_manually).
func (d *Driver) checkOutcomes() {
	byQueue := d.world.MergedByQueue()
	for _, n := range d.sortedPRs() {
		p := d.prs[n]
		e := d.entry(n)
		if e == nil {
			continue
		}
		switch {
		case p.bad && e.State == queue.StateMerged:
			d.fail("Bad #%d ended merged (%s)", n, e.StateReason)
		case p.mergedActive && (e.State != queue.StateMerged || e.StateReason != queue.ReasonMergedManually):
			d.fail("#%d was merged by hand while in the queue, but its entry ended %s (%s: %s), not merged (merged_manually)", n, e.State, e.StateReason, e.StateReasonDetail)
		case !p.bad && p.submitted && len(p.excused) == 0 && !slices.Contains(byQueue, n) && !legitNotReadyTimeout(e):
			d.fail("good #%d with no excuse ended %s (%s: %s) instead of merged by the queue", n, e.State, e.StateReason, e.StateReasonDetail)
		}
		if d.failure != nil {
			return
		}
	}
}

// legitNotReadyTimeout reports whether e was cancelled for waiting not_ready
// too long for a reason outside the queue's control: the queue did not
// admit, the PR conflicted, or its targets were missing.
func legitNotReadyTimeout(e *queue.Entry) bool {
	if e.StateReason != queue.ReasonNotReadyTimeout {
		return false
	}
	for _, why := range []string{"the queue is", "conflicts with", "impacted targets"} {
		if strings.Contains(e.StateReasonDetail, why) {
			return true
		}
	}
	return false
}

func (d *Driver) sortedPRs() []int {
	out := make([]int, 0, len(d.prs))
	for n := range d.prs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// describeQueue summarises the active entries and open runs, for failures.
func (d *Driver) describeQueue() string {
	s := "entries:"
	for _, e := range d.active() {
		s += fmt.Sprintf(" #%d %s (%s: %s) run %q blockedBy %q;", e.PRNumber, e.State, e.StateReason, e.StateReasonDetail, e.RunID, e.BlockedBy)
	}
	runs, _ := d.store.ListOpenRuns(d.ctx, d.q.ID)
	s += " runs:"
	for _, r := range runs {
		s += fmt.Sprintf(" %s %s PRs %v sha %s;", r.ID, r.Status, r.PRNumbers, shortSHA(r.SHA))
	}
	return s
}
