package sim

import (
	"testing"
	"time"
)

// TestInOrderFloorByHand: a PR waits for the PRs ahead that it overlaps to
// merge, an ALL PR for all of them, and its passing run starts only once
// the broken PRs it depends on are known: on arrival, after their run
// alone, or (SPEC §5.3) once the good PRs they depend on passed too.
func TestInOrderFloorByHand(t *testing.T) {
	t.Parallel()
	m := func(x int) time.Duration { return time.Duration(x) * time.Minute }
	prs := []PR{
		{Index: 0, Arrival: m(0), Targets: []string{"a"}},
		{Index: 1, Arrival: m(5), Targets: []string{"a"}, Bad: true},
		{Index: 2, Arrival: m(10), All: true},
		{Index: 3, Arrival: m(12), Targets: []string{"b"}},
		{Index: 4, Arrival: m(13), Targets: []string{"c"}},
	}
	ci := []time.Duration{m(30), m(20), m(20), m(10), m(10)}
	for _, c := range []struct {
		mode FloorMode
		want []time.Duration
	}{
		// #1 never runs; #2 waits for #0 to merge; #3 for #2; #4 too (ALL
		// is ahead of it).
		{FloorClairvoyant, []time.Duration{m(30), m(5), m(30), m(30), m(30)}},
		// #1 is known at 25: #2's run starts then.
		{FloorAlone, []time.Duration{m(30), m(25), m(45), m(45), m(45)}},
		// #1 is blamed once #0 passed, at 30.
		{FloorRuns, []time.Duration{m(30), m(30), m(50), m(50), m(50)}},
	} {
		got := InOrderFloor(prs, ci, c.mode)
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%v: ends %v, want %v", c.mode, got, c.want)
				break
			}
		}
	}
}

// TestInOrderFloorOrder: on the monorepo workload every good PR merges no
// earlier than its own run allows (the Oracle), and a queue that knows
// less is never faster; with no PR overlapping another the clairvoyant
// floor is the Oracle.
func TestInOrderFloorOrder(t *testing.T) {
	t.Parallel()
	p, err := PresetByName("monorepo")
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workload
	w.PRs = 600
	prs := w.Generate(2)
	ci := make([]time.Duration, len(prs))
	for i := range ci {
		ci[i] = time.Duration(20+i%17) * time.Minute
	}
	var ends [][]time.Duration
	for _, mode := range FloorModes {
		ends = append(ends, InOrderFloor(prs, ci, mode))
	}
	slower := 0
	for i, pr := range prs {
		if !pr.Bad && ends[0][i] < pr.Arrival+ci[i] {
			t.Fatalf("#%d merges at %v, before its run ends (%v)", i, ends[0][i], pr.Arrival+ci[i])
		}
		for k := 1; k < len(ends); k++ {
			if ends[k][i] < ends[k-1][i] {
				t.Fatalf("#%d: %v at %v, before %v at %v", i, FloorModes[k], ends[k][i], FloorModes[k-1], ends[k-1][i])
			}
		}
		if ends[2][i] > ends[0][i] {
			slower++
		}
	}
	if slower == 0 {
		t.Error("knowing culprits later never delays a PR on the monorepo workload")
	}
	w.AllShare, w.Targets, w.TargetsPerPR = 0, 1_000_000, 1
	if p50, p95 := FloorRatios(w, 3, FloorClairvoyant); p50 > 1.01 || p95 > 1.01 || p50 < 1 {
		t.Errorf("nearly independent PRs: clairvoyant floor %.3f× / %.3f× the Oracle, want 1", p50, p95)
	}
}
