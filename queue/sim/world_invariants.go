package sim

import (
	"fmt"
	"slices"
)

// Violations returns the invariant violations seen so far (empty = good):
//
//   - a PR the queue merged is merged again by the queue;
//   - the queue merges a head that no passing test commit merged ("never
//     merge a head other than the tested one");
//   - the target's content after a queue merge is not the content of a
//     passing test commit that merged that head, or of one of its commits
//     between that head's merge and its tip ("never merge an untested
//     tree": a batch lands one PR at a time, each landing on a prefix of
//     the tested branch; this also fixes the merge order). A passing CI on
//     the PR head itself counts as a test of the head's tree (direct
//     merges). In parallel mode (SetParallel) only what the PR depends on
//     must match: for each of its targets, the patches overlapping it on
//     the target equal those in the tested commit (for ALL: every patch
//     that impacts some target; SPEC §5.5, §5.10);
//   - a Bad PR lands through the queue;
//   - more test runs in flight than SetMaxInFlight allows.
func (w *World) Violations() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.violations)
}

// violate records a violation; the caller holds the lock.
func (w *World) violate(format string, args ...any) {
	w.violations = append(w.violations, w.now().Format("15:04:05")+" "+fmt.Sprintf(format, args...))
}

// checkMerge checks the invariants of the queue's merge of pr's head into
// landed; the caller holds the lock.
func (w *World) checkMerge(pr *simPR, head string, landed *commit) {
	if pr.spec.Bad {
		w.violate("the queue merged #%d, which is Bad (CI must fail on any tree containing it)", pr.number)
	}
	passed := w.passedByHead[head]
	if len(passed) == 0 {
		w.violate("the queue merged #%d at head %s, which no passing test commit merged", pr.number, shortSHA(head))
		return
	}
	parallel := w.parallel
	if w.parallelFn != nil {
		parallel = w.parallelFn()
	}
	for _, t := range passed {
		for c := t.c; c != nil; c = c.parent {
			if w.sameLanding(c, landed, pr, parallel) {
				return
			}
			if c.head == head || c.kind != kindBuilt {
				break
			}
		}
	}
	var tested []string
	for _, t := range passed {
		tested = append(tested, fmt.Sprintf("%s (PRs %v)", shortSHA(t.c.sha), t.contains))
	}
	w.violate("the queue merged #%d (head %s): the target now holds PRs %v (tree %s), which no passing test commit that merged that head holds at or after it; passing: %v",
		pr.number, shortSHA(head), w.targetPRsSince(landed), shortSHA(landed.tree()), tested)
}

// targetPRsSince lists the last patches of a target commit's history, for
// messages, oldest first (negative numbers are external pushes).
func (w *World) targetPRsSince(c *commit) []int {
	var out []int
	for ; c != nil && len(out) < 12; c = c.parent {
		if c.patch != 0 {
			out = append(out, c.patch)
		}
	}
	slices.Reverse(out)
	return out
}

// SetParallel switches the landing check to parallel mode: a merged PR's
// targets, not the whole tree, must hold what was tested (SPEC §5.10).
// Set it while the queue is in parallel mode.
func (w *World) SetParallel(on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.parallel = on
}

// SetParallelFunc makes every landing check ask fn whether the queue is in
// parallel mode at that moment (a queue switches modes inside a Sync); it
// overrides SetParallel. fn is called with the World's lock held: it must
// not call the World (reading the store is fine).
func (w *World) SetParallelFunc(fn func() bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.parallelFn = fn
}

// sameLanding reports whether landed holds what c tested for pr: the same
// tree, or in parallel mode the same patches wherever pr's targets overlap
// (SPEC §5.5: ALL overlaps every PR but those impacting no target).
func (w *World) sameLanding(c, landed *commit, pr *simPR, parallel bool) bool {
	if !parallel {
		return c.sameTree(landed)
	}
	base := lca(c, landed)
	tested, now := patchesAbove(c, base), patchesAbove(landed, base)
	if pr.spec.AllTargets {
		return slices.Equal(w.touching(tested, ""), w.touching(now, ""))
	}
	for _, t := range pr.spec.Targets {
		if !slices.Equal(w.touching(tested, t), w.touching(now, t)) {
			return false
		}
	}
	return true
}

// touching returns, sorted, the patches of ps that overlap target t, or
// with t == "" that overlap anything at all: an external push touches
// everything, a PR with ALL every target, a PR without targets nothing.
func (w *World) touching(ps []int, t string) []int {
	var out []int
	for _, p := range ps {
		pr := w.prs[p]
		switch {
		case p < 0 || pr == nil || pr.spec.AllTargets,
			t == "" && len(pr.spec.Targets) > 0,
			t != "" && slices.Contains(pr.spec.Targets, t):
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// patchesAbove lists the patches c's history added after base (an ancestor).
func patchesAbove(c, base *commit) []int {
	var out []int
	for ; c != nil && c != base; c = c.parent {
		if c.patch != 0 {
			out = append(out, c.patch)
		}
	}
	return out
}

// lca returns the last common ancestor of a and b.
func lca(a, b *commit) *commit {
	if a.depth > b.depth {
		a = ancestorAt(a, b.depth)
	} else {
		b = ancestorAt(b, a.depth)
	}
	if a == b {
		return a
	}
	for k := len(a.jump) - 1; k >= 0; k-- {
		if k < len(b.jump) && a.jump[k] != b.jump[k] {
			a, b = a.jump[k], b.jump[k]
		}
	}
	return a.parent
}
