package sim

import (
	"context"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

var _ queue.FastForwarder = (*World)(nil)

// FirstParents returns up to n commits of sha's first-parent chain, sha
// first: a merge commit's parents are its parent and the PR head it merged
// (the World keeps no second parent otherwise). Charged one read per
// commit, as githubx reads each (GET git/commits).
func (w *World) FirstParents(_ context.Context, repo queue.Repo, sha string, n int) ([]queue.ChainCommit, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("FirstParents", repo); err != nil {
		return nil, err
	}
	c, ok := w.commits[sha]
	if !ok {
		return nil, fmt.Errorf("failed to read commit %s: %w", sha, errWorldNotFound)
	}
	var out []queue.ChainCommit
	for ; c != nil && len(out) < n; c = c.parent {
		w.spend("FirstParents", GitHubCost{Reads: 1})
		cc := queue.ChainCommit{SHA: c.sha}
		if c.parent != nil {
			cc.Parents = append(cc.Parents, c.parent.sha)
		}
		if c.head != "" {
			cc.Parents = append(cc.Parents, c.head)
		}
		out = append(out, cc)
	}
	return out, nil
}

// FastForward moves the target branch from `from` to `to` when `to`
// contains it (else queue.ErrNotFastForward; a branch no longer at from is
// refused the same way, as a git push's compare-and-swap would be), and
// marks merged by the queue each open PR whose head is now on the branch,
// each at the commit that merged it, checked against the invariants like
// a queue merge. Charged one write (PATCH git/refs) with the REST client,
// none with git builds (a git push). Faults armed with FailNextMerges
// apply: FaultBaseModified refuses it, FaultTransient fails before,
// FaultAppliedThenTransient after it moved the branch.
func (w *World) FastForward(_ context.Context, repo queue.Repo, branch, from, to string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("FastForward", repo); err != nil {
		return err
	}
	if w.git == nil {
		w.spend("FastForward", GitHubCost{Writes: 1})
	} else {
		w.spend("FastForward", GitHubCost{Git: gitRequests})
	}
	fault := w.nextFault()
	switch fault {
	case FaultBaseModified:
		return &queue.RejectedError{Status: 422, Message: "Protected branch update failed for refs/heads/" + branch + "."}
	case FaultTransient:
		return fmt.Errorf("failed to fast-forward %s: 502 Bad Gateway: %w", branch, queue.ErrTransient)
	}
	head, ok := w.commits[w.refs[branch]]
	dest, found := w.commits[to]
	if branch != w.cfg.Branch || !ok || !found || head.sha != from || !isAncestor(head, dest) {
		return fmt.Errorf("failed to fast-forward %s to %s: %w", branch, shortSHA(to), queue.ErrNotFastForward)
	}
	var landed []*commit
	for c := dest; c != head; c = c.parent {
		landed = append(landed, c)
	}
	w.refs[branch] = to
	for i := len(landed) - 1; i >= 0; i-- {
		c := landed[i]
		pr := w.prs[c.patch]
		if c.patch <= 0 || pr == nil || pr.merged && !pr.byQueue {
			continue
		}
		if !pr.merged && (!pr.open || pr.head != c.head) {
			w.violate("the queue landed #%d at head %s, which is not the head of an open PR (open %v, head %s)",
				pr.number, shortSHA(c.head), pr.open, shortSHA(pr.head))
			continue
		}
		if pr.merged && pr.byQueue {
			w.violate("the queue landed #%d (head %s) a second time", pr.number, shortSHA(c.head))
		}
		pr.open, pr.merged, pr.byQueue, pr.mergeCommit = false, true, true, c.sha
		w.merged = append(w.merged, pr.number)
		w.mergedByQueue = append(w.mergedByQueue, pr.number)
		w.checkMerge(pr, c.head, c)
	}
	if fault == FaultAppliedThenTransient {
		return fmt.Errorf("failed to fast-forward %s: 502 Bad Gateway after the update: %w", branch, queue.ErrTransient)
	}
	return nil
}
