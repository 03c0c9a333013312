package sim

import "testing"

// The randomized suite lets autoTune retune the queue in a share of its
// seeds (AutoTuneShare), and those seeds keep every invariant while the
// settings change under runs in flight: a suite that never changed a
// setting that way would prove nothing about it. Single-mode queues
// change often (five or more candidates of every kind); parallel-mode ones
// seldom, since only their concurrency is tuned (three candidates, often
// fewer within a small bound) and only once the targets of
// autotune.MinTargeted PRs are known, which a short seed may not reach:
// each kind must change in some seeds.
func TestInvariantsWithAutoTune(t *testing.T) {
	t.Parallel()
	var seeds, changed [2]int // single, parallel
	changes := 0
	for seed := uint64(1); seed <= 300; seed++ {
		d, err := runSeed(seed, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d.failure != nil {
			t.Fatalf("seed %d: %v", seed, d.failure)
		}
		if d.auto == nil {
			continue
		}
		kind := 0
		if d.auto.tuner.Current().Parallel {
			kind = 1
		}
		seeds[kind]++
		if d.auto.changes > 0 {
			changed[kind]++
			changes += d.auto.changes
		}
	}
	if seeds[0] < 30 || changed[0] < seeds[0]/2 || seeds[1] < 10 || changed[1] < 1 {
		t.Errorf("autoTune was on in %d single-mode and %d parallel-mode seeds of 300 and changed the settings in %d and %d of them",
			seeds[0], seeds[1], changed[0], changed[1])
	}
	t.Logf("autoTune on in %d single-mode seeds (changed in %d) and %d parallel-mode ones (changed in %d): %d changes",
		seeds[0], changed[0], seeds[1], changed[1], changes)
}
