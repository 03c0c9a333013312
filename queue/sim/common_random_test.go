package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestCommonRandomGivesBaselinesAndOursTheSameCI: with common random
// numbers a baseline's run and our engine's run that end with the same PR,
// its n-th, last as long on one seed, whatever else the trees hold and
// whichever policy ran which PR first; without, a baseline's durations
// follow the order its runs start in.
func TestCommonRandomGivesBaselinesAndOursTheSameCI(t *testing.T) {
	t.Parallel()
	p, err := PresetByName("shopify")
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workload
	prs := w.Generate(3)
	// baseline runs the trees in order in the harness and returns each
	// one's duration.
	baseline := func(common bool, trees [][]int) []time.Duration {
		s := NewSim()
		h := newHarness(s, w, prs, NewRecorder(prs), 3)
		if common {
			h.common = newCommonCI(3)
		}
		out := make([]time.Duration, len(trees))
		for i, tree := range trees {
			h.test(tree, false, func(b *ciBuild) { out[i] = s.Elapsed() - b.start })
		}
		s.RunUntil(48*time.Hour, func() bool { return false })
		return out
	}
	// ours draws the trees' durations as our engine's run does (PR index
	// i is World PR number 100+i).
	ours := func(trees [][]int) []time.Duration {
		r := &oursRun{w: w, index: map[int]int{}, ci: rand.New(rand.NewPCG(3, 0xc1c1c1c1)), common: newCommonCI(3)}
		out := make([]time.Duration, len(trees))
		for i, tree := range trees {
			job := CIJob{}
			for _, pr := range tree {
				r.index[100+pr] = pr
				job.Contains = append(job.Contains, 100+pr)
			}
			out[i] = w.SampleCI(r.ciRand(job))
		}
		return out
	}
	// The baseline runs 4 alone, then 2..4 (4's second run), then 7; ours
	// runs 7, then 3..4 and 4 again.
	base := baseline(true, [][]int{{4}, {2, 3, 4}, {7}})
	got := ours([][]int{{7}, {3, 4}, {4}})
	if base[0] != got[1] || base[1] != got[2] || base[2] != got[0] {
		t.Errorf("baseline runs lasted %v, ours %v: a PR's n-th run differs between them", base, got)
	}
	plain := baseline(false, [][]int{{7}, {4}})
	if plain[0] == base[2] && plain[1] == base[0] {
		t.Errorf("without common random numbers the baseline's runs drew as with them: the test cannot tell them apart")
	}
}

// TestCommonRandomGivesAPRsRunTheSameCI: with RunOptions.CommonRandom, a
// PR's n-th run draws the same CI duration and flake whatever the order
// the runs start in (two settings of one seed); without, the draws follow
// that order.
func TestCommonRandomGivesAPRsRunTheSameCI(t *testing.T) {
	t.Parallel()
	draws := func(common bool, order []int) map[[2]int]float64 {
		r := &oursRun{index: map[int]int{10: 0, 11: 1, 12: 2}, ci: rand.New(rand.NewPCG(5, 0xc1c1c1c1))}
		if common {
			r.common = newCommonCI(5)
		}
		out := map[[2]int]float64{}
		seen := map[int]int{}
		for _, pr := range order {
			seen[pr]++
			out[[2]int{pr, seen[pr]}] = r.ciRand(CIJob{Contains: []int{9, pr}}).Float64()
		}
		return out
	}
	a, b := []int{10, 11, 12, 10, 11}, []int{12, 11, 11, 10, 10}
	alike := func(x, y map[[2]int]float64) int {
		n := 0
		for k, v := range x {
			if y[k] == v {
				n++
			}
		}
		return n
	}
	if n := alike(draws(true, a), draws(true, b)); n != 5 {
		t.Errorf("common random numbers: %d of 5 runs drew alike in another order, want 5", n)
	}
	if n := alike(draws(false, a), draws(false, b)); n == 5 {
		t.Errorf("without common random numbers every run drew alike: the test cannot tell them apart")
	}
}
