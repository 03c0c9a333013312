package fakegithub

import (
	"strings"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// ciBranchPrefix marks the branches the simulated CI tests: the queue's
// default test branches, as a repository's CI would be set up to run on.
const ciBranchPrefix = queue.DefaultTestBranchPrefix

// moveRef changes ref from old ("" = absent) to next ("" = delete) with a
// compare-and-swap, then does what GitHub does on a push: the push
// webhook, synchronize (or close) the PRs whose head or base it is, mark
// PRs merged whose head the base now contains, and start the simulated CI
// for mq-merge/** branches. Caller holds r.mu.
func (r *repo) moveRef(ref, old, next, sender string) error {
	if old == next {
		return nil
	}
	switch {
	case next == "":
		if err := r.git.deleteRef(ref, old); err != nil {
			return err
		}
	case old == "":
		if err := r.git.updateRef(ref, next, zeroSHA); err != nil {
			return err
		}
	default:
		if err := r.git.updateRef(ref, next, old); err != nil {
			return err
		}
	}
	r.logRef(ref, old, next, sender)
	forced := false
	if old != "" && next != "" {
		ff, err := r.git.isAncestor(old, next)
		if err != nil {
			return err
		}
		forced = !ff
	}
	orZero := func(s string) string {
		if s == "" {
			return zeroSHA
		}
		return s
	}
	if strings.HasPrefix(ref, "refs/heads/") || strings.HasPrefix(ref, "refs/tags/") {
		r.emitPush(ref, orZero(old), orZero(next), forced, sender)
	}
	branch, isBranch := strings.CutPrefix(ref, "refs/heads/")
	if !isBranch {
		return nil
	}
	for _, n := range r.prNumbers() {
		pr := r.prs[n]
		if pr.state != "open" {
			continue
		}
		switch {
		case next == "" && (pr.headRef == branch || pr.baseRef == branch):
			r.closePR(pr, sender)
		case pr.headRef == branch && pr.headSHA != next:
			before := pr.headSHA
			pr.headSHA = next
			pr.updatedAt = time.Now().UTC()
			r.emitPR(pr, "synchronize", sender, func(ev *github.PullRequestEvent) {
				ev.Before = github.String(before)
				ev.After = github.String(next)
			})
		case pr.baseRef == branch:
			// GitHub marks a PR merged once its head is in the base.
			contained, err := r.git.isAncestor(pr.headSHA, next)
			if err != nil {
				return err
			}
			if contained {
				r.markMerged(pr, next, sender)
				r.emitPR(pr, "closed", sender, nil)
			}
		}
	}
	if next != "" && strings.HasPrefix(branch, ciBranchPrefix) {
		r.s.ci.trigger(r, branch, next)
	}
	return nil
}
