package autotune

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// Tuning is the part of a queue's settings that autoTune chooses. In
// parallel mode (Parallel) that is the concurrency (and, with batches or
// isolation runs, the runs outside the chain) only: the other fields are
// the queue's own, which the estimates simulate and Update leaves as they
// are.
type Tuning struct {
	// Parallel is the queue's mode, parallel (not tuned: it says what the
	// estimates simulate and what a change may set).
	Parallel bool
	// Concurrency is the runs of the speculative chain at once.
	Concurrency int
	// Batch turns batching on, with batches of BatchMin..BatchMax
	// entries; BisectionConcurrency runs outside the chain (bisections,
	// isolation runs) and BisectionParts the parts a failed batch splits
	// into (0 = halves).
	Batch                bool
	BatchMin, BatchMax   int
	BisectionConcurrency int
	BisectionParts       int
	// PendingFailureDepth and Optimistic absorb flakes: a failed run waits
	// for this many runs behind it, and a later pass merges it.
	PendingFailureDepth int
	Optimistic          bool
	// Isolation tests each PR alone first (isolationRuns).
	Isolation bool
}

// FromSettings reads the tuned part of s.
func FromSettings(s queue.Settings) Tuning {
	t := Tuning{Parallel: s.Mode == queue.ModeParallel, Concurrency: s.Concurrency, Batch: s.Batch,
		PendingFailureDepth: s.PendingFailureDepth, Optimistic: s.CanOptimisticallyMerge, Isolation: s.IsolationRuns}
	if s.Batch {
		t.BatchMin, t.BatchMax = s.BatchingMinSize, s.EffectiveBatchingMaxSize()
		t.BisectionParts = s.BisectionParts
		if t.BisectionParts <= 2 {
			t.BisectionParts = 0 // halves
		}
	}
	if s.Batch || s.IsolationRuns {
		// 0 is "as many as the chain": the runs the queue may have outside it.
		t.BisectionConcurrency = s.EffectiveBisectionConcurrency()
	}
	return t
}

// Runs is the most CI runs the tuning has at once: the chain's and, with
// batches or isolation runs, those outside it.
func (t Tuning) Runs() int {
	if t.Batch || t.Isolation {
		return t.Concurrency + t.BisectionConcurrency
	}
	return t.Concurrency
}

// Leaner reports whether t spends less than u whatever the traffic, as
// far as its settings tell: fewer CI runs at once (fewer speculative runs
// to waste on a failure), or as many and, when flakes are possible
// (mayFlake), t absorbs them (AbsorbsFlakes: a flake neither rejects a
// good PR, whose runs are then spent without a merge, nor restarts the
// runs behind it) while u does not. The chooser prefers the leaner of
// candidates its estimates cannot tell apart (ChoiceMargin, RunsNoise).
func (t Tuning) Leaner(u Tuning, mayFlake bool) bool { return leanness(t, u, mayFlake) < 0 }

// AbsorbsFlakes reports whether a flaky failure waits for a run behind it
// (pendingFailureDepth ≥ 1) whose pass merges it (optimistic merging).
func (t Tuning) AbsorbsFlakes() bool { return t.PendingFailureDepth >= 1 && t.Optimistic }

// leanness orders a before b (-1) when a is Leaner, after (+1) when b is.
func leanness(a, b Tuning, mayFlake bool) int {
	if c := cmp.Compare(a.Runs(), b.Runs()); c != 0 || !mayFlake {
		return c
	}
	switch {
	case a.AbsorbsFlakes() && !b.AbsorbsFlakes():
		return -1
	case b.AbsorbsFlakes() && !a.AbsorbsFlakes():
		return 1
	}
	return 0
}

// Apply returns s with t's values.
func (t Tuning) Apply(s queue.Settings) queue.Settings {
	u := t.Update()
	out, err := u.ApplySettings(s)
	if err != nil {
		return s // not reached for a tuning the Chooser made (Validate)
	}
	return out
}

// Update is the settings update that applies t. In parallel mode it sets
// the concurrency only, and with batches or isolation runs the runs
// outside the chain (bisection concurrency). In single mode batch sizes
// and bisection parts are written only with batches on (a queue keeps its
// own otherwise); bisection concurrency only with batches or isolation
// runs.
func (t Tuning) Update() queue.QueueUpdate {
	if t.Parallel {
		u := queue.QueueUpdate{Concurrency: &t.Concurrency}
		if t.Batch || t.Isolation {
			u.BisectionConcurrency = &t.BisectionConcurrency
		}
		return u
	}
	u := queue.QueueUpdate{Concurrency: &t.Concurrency, Batch: &t.Batch, PendingFailureDepth: &t.PendingFailureDepth,
		CanOptimisticallyMerge: &t.Optimistic, IsolationRuns: &t.Isolation}
	if t.Batch || t.Isolation {
		u.BisectionConcurrency = &t.BisectionConcurrency
	}
	if t.Batch {
		parts := max(t.BisectionParts, 2) // 0 = halves
		u.BatchingMinSize, u.BatchingMaxSize, u.BisectionParts = &t.BatchMin, &t.BatchMax, &parts
	}
	return u
}

// Validate reports a tuning the queue would refuse.
func (t Tuning) Validate() error {
	_, err := t.Update().ApplySettings(queue.DefaultSettings())
	if err != nil {
		return fmt.Errorf("invalid tuning %s: %w", t, err)
	}
	return nil
}

// String is a compact description, e.g. "k=12, batches 2..8 (bis 12, split 8), depth 1, optimistic"
// ("parallel, k=200, batches off, depth 0" in parallel mode).
func (t Tuning) String() string {
	parts := []string{fmt.Sprintf("k=%d", t.Concurrency)}
	if t.Parallel {
		parts[0] = "parallel, " + parts[0]
	}
	if t.Batch {
		b := fmt.Sprintf("batches %d..%d (bis %d", t.BatchMin, t.BatchMax, t.BisectionConcurrency)
		if t.BisectionParts > 2 {
			b += fmt.Sprintf(", split %d", t.BisectionParts)
		}
		parts = append(parts, b+")")
	} else {
		parts = append(parts, "batches off")
	}
	parts = append(parts, fmt.Sprintf("depth %d", t.PendingFailureDepth))
	if t.Optimistic {
		parts = append(parts, "optimistic")
	}
	if t.Isolation {
		parts = append(parts, fmt.Sprintf("isolation runs (bis %d)", t.BisectionConcurrency))
	}
	return strings.Join(parts, ", ")
}

// diff describes what changes from a to b ("batches off, depth 2").
func diff(a, b Tuning) string {
	var parts []string
	if a.Concurrency != b.Concurrency {
		parts = append(parts, fmt.Sprintf("concurrency %d", b.Concurrency))
	}
	switch {
	case a.Batch && !b.Batch:
		parts = append(parts, "batches off")
	case b.Batch && (!a.Batch || a.BatchMin != b.BatchMin || a.BatchMax != b.BatchMax || a.BisectionParts != b.BisectionParts):
		s := fmt.Sprintf("batches %d..%d", b.BatchMin, b.BatchMax)
		if b.BisectionParts > 2 {
			s += fmt.Sprintf(" split %d", b.BisectionParts)
		}
		parts = append(parts, s)
	}
	if (b.Batch || b.Isolation) && a.BisectionConcurrency != b.BisectionConcurrency {
		parts = append(parts, fmt.Sprintf("bisection concurrency %d", b.BisectionConcurrency))
	}
	if a.PendingFailureDepth != b.PendingFailureDepth {
		parts = append(parts, fmt.Sprintf("depth %d", b.PendingFailureDepth))
	}
	if a.Optimistic != b.Optimistic {
		parts = append(parts, onOff("optimistic merging", b.Optimistic))
	}
	if a.Isolation != b.Isolation {
		parts = append(parts, onOff("isolation runs", b.Isolation))
	}
	return strings.Join(parts, ", ")
}

func onOff(name string, on bool) string {
	if on {
		return name + " on"
	}
	return name + " off"
}
