package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// benchSingle is a single-mode queue of n entries, the first k testing on
// valid chained runs, the rest waiting: the common, settled step.
func benchSingle(n, k int) *Snapshot {
	b := newSnap(k)
	var ahead []string
	for i := 1; i <= n; i++ {
		st := queue.StatePending
		if i <= k {
			st = queue.StateTesting
		}
		e := b.entry(i, st)
		if i <= k {
			e.Position = int64(i)
			b.run(e, queue.RunInProgress, "H0", append([]string{}, ahead...)...)
		}
		ahead = append(ahead, e.ID)
	}
	return b.s
}

// benchParallel is a parallel-mode queue of n entries with Zipf-popular
// targets (1–3 of 64, 8 % ALL), the first k testing on valid runs built on
// their dependencies.
func benchParallel(n, k int) *Snapshot {
	b := newSnap(k)
	b.s.Queue.Settings.Mode = queue.ModeParallel
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, 63)
	var chain []*queue.Entry
	for i := 1; i <= n; i++ {
		st := queue.StatePending
		if i <= k {
			st = queue.StateTesting
		}
		e := b.entry(i, st)
		if i <= k {
			e.Position = int64(i)
		}
		if rng.Float64() < 0.08 {
			b.targets(e, true)
		} else {
			var names []string
			for range 1 + rng.IntN(3) {
				names = append(names, fmt.Sprintf("//t%d", zipf.Uint64()))
			}
			b.targets(e, false, names...)
		}
		chain = append(chain, e)
	}
	for i, u := range b.s.parallelUnits(chain[:k]) {
		b.run(chain[i], queue.RunInProgress, "H0", ids(u.aheadEntries())...)
	}
	return b.s
}

// withMerges makes m PRs independent of every entry (an empty target
// list, which not even ALL overlaps) land after the runs' base H0, as in a
// parallel queue merging faster than its CI: every run must be followed
// through all of them.
func withMerges(s *Snapshot, m int) *Snapshot {
	for i := 1; i <= m; i++ {
		pr := 100000 + i
		s.Merges = append(s.Merges, queue.MergeRecord{EntryID: fmt.Sprintf("m%d", i), PRNumber: pr,
			Before: fmt.Sprintf("H%d", i-1), After: fmt.Sprintf("H%d", i)})
		s.Targets[pr] = NewTargetSet(&queue.Targets{SHA: "x", List: []string{}})
	}
	s.TargetHead = fmt.Sprintf("H%d", m)
	return s
}

// BenchmarkNext measures one engine decision on a settled queue (every
// run valid, concurrency reached): the step every Sync ends with.
func BenchmarkNext(b *testing.B) {
	for _, bc := range []struct {
		name string
		snap *Snapshot
	}{
		{"single/100-entries-12-testing", benchSingle(100, 12)},
		{"single/500-entries-50-testing", benchSingle(500, 50)},
		{"parallel/400-entries-200-testing", benchParallel(400, 200)},
		// Issue #11: the engine's scale limit.
		{"single/1000-entries-100-testing", benchSingle(1000, 100)},
		{"single/5000-entries-200-testing", benchSingle(5000, 200)},
		{"parallel/1000-entries-200-testing", benchParallel(1000, 200)},
		{"parallel/5000-entries-200-testing", benchParallel(5000, 200)},
		{"parallel/1000-entries-200-testing-150-merges-since", withMerges(benchParallel(1000, 200), 150)},
		{"parallel/5000-entries-200-testing-500-merges-since", withMerges(benchParallel(5000, 200), 500)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if a, _ := Next(bc.snap, t0); a != nil {
				b.Fatalf("the benchmark queue is not settled: %#v", a)
			}
			b.ReportAllocs()
			for b.Loop() {
				Next(bc.snap, t0)
			}
		})
	}
}
