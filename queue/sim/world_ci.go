package sim

import (
	"fmt"
	"slices"
	"time"

	"github.com/mergequeue/mq/queue"
)

// SetOnPublish sets the function told of every published test branch,
// synchronously from BuildBranch (without the World's lock, but inside the
// Service's call: it must not call back into the Service).
func (w *World) SetOnPublish(fn func(CIJob)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onPublish = fn
}

// SetMaxInFlight sets the bound InFlight must respect whenever a test
// branch is published (0 = unchecked); exceeding it is a violation.
func (w *World) SetMaxInFlight(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inFlightBound = n
}

// SetTestTimeout tells the World the queue's testing timeout (0 = none): a
// test commit published that long ago no longer counts as in flight, since
// the queue has given up on it (its CI may still report).
func (w *World) SetTestTimeout(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.testTimeout = d
}

// publish records c as a test commit published on branch and checks the
// in-flight bound; the caller holds the lock.
func (w *World) publish(c *commit, branch string) CIJob {
	w.publishSeq++
	t := &testCommit{c: c, branch: branch, seq: w.publishSeq, contains: builtPRs(c), publishedAt: w.now()}
	w.tests[c.sha] = t
	w.live[c.sha] = t
	// CI starts at once: its checks show as queued until it reports (the
	// queue reads them when it looks; only results are sent to it).
	for _, name := range w.cfg.Checks {
		if !slices.ContainsFunc(w.checks[c.sha], func(r queue.CheckResult) bool { return r.Name == name }) {
			w.checks[c.sha] = append(w.checks[c.sha], queue.CheckResult{SHA: c.sha, Kind: queue.KindCheckRun, Name: name,
				State: queue.CheckPending, Raw: "queued", UpdatedAt: w.now()})
		}
	}
	n := w.inFlight()
	w.maxInFlight = max(w.maxInFlight, n)
	if w.inFlightBound > 0 && n > w.inFlightBound {
		w.violate("%d test runs in flight after publishing %s (PRs %v), more than the bound %d", n, branch, t.contains, w.inFlightBound)
	}
	return t.job()
}

// unpublish records that t's branch is gone; the caller holds the lock.
func (w *World) unpublish(t *testCommit) {
	t.deleted = true
	delete(w.live, t.c.sha)
}

func (t *testCommit) job() CIJob {
	return CIJob{SHA: t.c.sha, Branch: t.branch, Contains: slices.Clone(t.contains), PublishedAt: t.publishedAt}
}

// inFlight counts live test commits the queue has not timed out; the caller
// holds the lock.
func (w *World) inFlight() int {
	now, n := w.now(), 0
	for _, t := range w.live {
		if w.testTimeout <= 0 || now.Before(t.publishedAt.Add(w.testTimeout)) {
			n++
		}
	}
	return n
}

// InFlight counts published test branches, not deleted, whose CI has not
// reported (and, with SetTestTimeout, that have not timed out).
func (w *World) InFlight() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.inFlight()
}

// MaxInFlight is the highest InFlight ever seen (at a publish).
func (w *World) MaxInFlight() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.maxInFlight
}

// PendingCI returns the published test commits whose branch still exists and
// whose CI has not reported, oldest first.
func (w *World) PendingCI() []CIJob {
	w.mu.Lock()
	defer w.mu.Unlock()
	ts := make([]*testCommit, 0, len(w.live))
	for _, t := range w.live {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, b *testCommit) int { return a.seq - b.seq })
	out := make([]CIJob, len(ts))
	for i, t := range ts {
		out[i] = t.job()
	}
	return out
}

// Intrinsic reports whether a commit's content passes CI: it contains no
// Bad PR. An unknown commit does not pass.
func (w *World) Intrinsic(sha string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.commits[sha]
	return ok && !c.bad
}

// PRsIn returns the PR numbers whose patches a commit contains, sorted
// (nil for an unknown commit). It walks the whole history: for tests and
// reports, not for hot loops.
func (w *World) PRsIn(sha string) []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []int
	for c := w.commits[sha]; c != nil; c = c.parent {
		if c.patch > 0 {
			out = append(out, c.patch)
		}
	}
	slices.Sort(out)
	return out
}

// ReportCI records the final result of every configured check on sha
// (success when pass, else failure) and returns them, to be fed to
// Service.OnCheck. A pass on a test commit marks it, and every PR head it
// merged, as tested.
func (w *World) ReportCI(sha string, pass bool) []queue.CheckResult {
	w.mu.Lock()
	defer w.mu.Unlock()
	state, raw := queue.CheckFailure, "failure"
	if pass {
		state, raw = queue.CheckSuccess, "success"
	}
	var out []queue.CheckResult
	for _, name := range w.cfg.Checks {
		c := queue.CheckResult{SHA: sha, Kind: queue.KindCheckRun, Name: name, State: state, Raw: raw,
			URL: fmt.Sprintf("https://ci.sim/%s/%s", shortSHA(sha), name), UpdatedAt: w.now()}
		out = append(out, c)
		recorded := w.checks[sha]
		if i := slices.IndexFunc(recorded, func(r queue.CheckResult) bool { return r.Name == name }); i >= 0 {
			recorded[i] = c
		} else {
			w.checks[sha] = append(recorded, c)
		}
	}
	t := w.tests[sha]
	if t == nil {
		// A passing CI on a PR head tests the head's own tree (the target
		// it was pushed on, plus its patch): what a direct merge lands.
		if c := w.commits[sha]; c != nil && c.kind == kindHead && pass && !slices.ContainsFunc(w.passedByHead[sha], func(t *testCommit) bool { return t.c == c }) {
			w.passedByHead[sha] = append(w.passedByHead[sha], &testCommit{c: c, passed: true, reported: true, publishedAt: w.now()})
		}
		return out
	}
	t.reported = true
	delete(w.live, sha)
	if pass && !t.passed {
		t.passed = true
		for c := t.c; c != nil && c.kind == kindBuilt; c = c.parent {
			if c.head != "" {
				w.passedByHead[c.head] = append(w.passedByHead[c.head], t)
			}
		}
	}
	return out
}
