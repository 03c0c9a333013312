package sim

import "testing"

// The randomized suite lets autoTune retune the queue in a share of its
// seeds (AutoTuneShare), and those seeds keep every invariant while the
// settings change under runs in flight: a suite that never changed a
// setting that way would prove nothing about it.
func TestInvariantsWithAutoTune(t *testing.T) {
	t.Parallel()
	seeds, changed, changes := 0, 0, 0
	for seed := uint64(1); seed <= 120; seed++ {
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
		seeds++
		if d.auto.changes > 0 {
			changed++
			changes += d.auto.changes
		}
	}
	if seeds < 15 || changed < seeds/2 {
		t.Errorf("autoTune was on in %d of 120 seeds and changed the settings in %d of them", seeds, changed)
	}
	t.Logf("autoTune on in %d seeds, changed the settings in %d (%d changes)", seeds, changed, changes)
}
