package sim

import (
	"flag"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// defaultSeeds is TestInvariants' seed count: about 3 s, or 15 s under
// -race, on two cores.
const defaultSeeds = 2000

var (
	invSeed  = flag.Uint64("seed", 0, "TestInvariants: run only this seed, with its full event log")
	invSeeds = flag.Int("seeds", defaultSeeds, "TestInvariants: number of seeds to run (1..seeds)")
	invSteps = flag.Int("steps", 0, "TestInvariants: random steps per seed (0 = drawn from the seed); with -seed, to replay a shrunk failure")
	invLog   = flag.Bool("enginelog", false, "TestInvariants: with -seed, print the engine's debug log too")
	invKnown = flag.Bool("knownbugs", false, "TestInvariants: run into the engine bugs not fixed yet instead of steering around them")
)

// TestInvariants drives the real queue.Service through thousands of seeded
// random event sequences (see Driver) and checks the queue's invariants
// after every step and its liveness at the end. A failure prints the seed,
// the shortest failing prefix of its steps, and the event log; reproduce
// it with -seed N -steps K.
func TestInvariants(t *testing.T) {
	if *invSeed != 0 {
		opts := DriverOptions{Steps: *invSteps, HitKnownBugs: *invKnown}
		if *invLog {
			opts.EngineLog = testWriter{t}
		}
		d, err := NewDriver(*invSeed, opts)
		if err != nil {
			t.Fatal(err)
		}
		if d.Run() != nil {
			t.Fatal(d.Report())
		}
		for _, line := range d.Log() {
			t.Log(line)
		}
		return
	}
	seeds := *invSeeds
	if testing.Short() {
		seeds = min(seeds, 200)
	}
	shards := max(runtime.GOMAXPROCS(0), 1)
	var (
		mu    sync.Mutex
		first uint64 // lowest failing seed
	)
	t.Run("shards", func(t *testing.T) {
		for shard := range shards {
			t.Run("", func(t *testing.T) {
				t.Parallel()
				for seed := uint64(1 + shard); seed <= uint64(seeds); seed += uint64(shards) {
					d, err := runSeed(seed, *invSteps)
					if err != nil {
						t.Fatal(err)
					}
					if d.failure != nil {
						mu.Lock()
						if first == 0 || seed < first {
							first = seed
						}
						mu.Unlock()
						return
					}
				}
			})
		}
	})
	if first != 0 {
		t.Fatal(shrink(first, *invSteps))
	}
}

// runSeed runs one seed.
func runSeed(seed uint64, steps int) (*Driver, error) {
	d, err := NewDriver(seed, DriverOptions{Steps: steps, HitKnownBugs: *invKnown})
	if err != nil {
		return nil, err
	}
	_ = d.Run()
	return d, nil
}

// shrink finds the fewest steps of seed that still fail and reports that run.
func shrink(seed uint64, steps int) string {
	full, err := runSeed(seed, steps)
	if err != nil {
		return err.Error()
	}
	best := full
	for k := 1; k < full.steps; k++ {
		d, err := runSeed(seed, k)
		if err == nil && d.failure != nil {
			best = d
			break
		}
	}
	return "shrunk from " + strconv.Itoa(full.steps) + " steps: " + best.Report()
}

// testWriter logs each write through t.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
