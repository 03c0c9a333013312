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
		b.run(chain[i], queue.RunInProgress, "H0", ids(u.ahead)...)
	}
	return b.s
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
