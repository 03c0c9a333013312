package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// referenceParallelDeps is the definition of SPEC §5.5 written plainly:
// entry i depends on every j before it whose targets overlap its own or
// those of one of its dependencies.
func referenceParallelDeps(s *Snapshot, chain []*queue.Entry) [][]string {
	deps := make([]map[int]bool, len(chain))
	out := make([][]string, len(chain))
	for i, e := range chain {
		deps[i] = map[int]bool{}
		for j := i - 1; j >= 0; j-- {
			if deps[i][j] {
				continue
			}
			if s.targetsOf(e).Overlaps(s.targetsOf(chain[j])) {
				deps[i][j] = true
				for k := range deps[j] {
					deps[i][k] = true
				}
			}
		}
		// Dependencies of dependencies found later in the downward scan.
		for changed := true; changed; {
			changed = false
			for j := range deps[i] {
				for k := range deps[j] {
					if !deps[i][k] {
						deps[i][k], changed = true, true
					}
				}
			}
		}
		for j := 0; j < i; j++ {
			if deps[i][j] {
				out[i] = append(out[i], chain[j].ID)
			}
		}
	}
	return out
}

// TestParallelUnitsMatchesDefinition checks the fast dependency closure
// against the plain definition on random target structures with ALL,
// empty and unknown target sets.
func TestParallelUnitsMatchesDefinition(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		s := &Snapshot{Queue: &queue.Queue{Settings: queue.DefaultSettings()}, Targets: map[int]*TargetSet{}}
		s.Queue.Settings.Mode = queue.ModeParallel
		n := 1 + rng.IntN(90)
		var chain []*queue.Entry
		for i := 0; i < n; i++ {
			e := &queue.Entry{ID: fmt.Sprintf("e%d", i), PRNumber: i + 1, PRSHA: fmt.Sprintf("h%d", i)}
			chain = append(chain, e)
			switch rng.IntN(20) {
			case 0: // unknown targets
			case 1:
				s.Targets[e.PRNumber] = NewTargetSet(&queue.Targets{SHA: e.PRSHA, All: true})
			case 2:
				s.Targets[e.PRNumber] = NewTargetSet(&queue.Targets{SHA: e.PRSHA})
			default:
				var names []string
				for k := 0; k <= rng.IntN(3); k++ {
					names = append(names, fmt.Sprintf("//t%d", rng.IntN(12)))
				}
				s.Targets[e.PRNumber] = NewTargetSet(&queue.Targets{SHA: e.PRSHA, List: names})
			}
		}
		want := referenceParallelDeps(s, chain)
		got := s.parallelUnits(chain)
		for i := range chain {
			if g := ids(got[i].aheadEntries()); fmt.Sprint(g) != fmt.Sprint(want[i]) && !(len(g) == 0 && len(want[i]) == 0) {
				t.Fatalf("seed %d: entry %d depends on %v, want %v", seed, i, g, want[i])
			}
		}
	}
}
