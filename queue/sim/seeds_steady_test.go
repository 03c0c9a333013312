package sim

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestThirds: Result.Thirds are the median time-to-merge of the merged PRs
// of the second and last third of the arrivals; a queue whose waits grow
// shows it.
func TestThirds(t *testing.T) {
	var recs []Record
	for i := range 9 {
		wait := time.Duration(10+10*(i/3)) * time.Minute // 10, 20, 30 min by third
		recs = append(recs, Record{Arrival: time.Duration(i) * time.Minute, End: time.Duration(i)*time.Minute + wait, Outcome: Merged})
	}
	recs[8].Outcome, recs[8].End = Rejected, 0 // not merged: not counted
	got := thirds(recs)
	if got != [2]time.Duration{20 * time.Minute, 30 * time.Minute} {
		t.Errorf("thirds = %v, want [20m 30m]", got)
	}
	res := Summarize("x", Workload{}, &Recorder{Records: recs}, time.Hour)
	if res.Thirds != got {
		t.Errorf("Summarize().Thirds = %v, want %v", res.Thirds, got)
	}
}

// TestSteadyState: a policy is at steady state when the last third's median
// time-to-merge is within 10 % of the second third's; the report says which
// policies are not.
func TestSteadyState(t *testing.T) {
	spread := func(m float64) Spread { return Spread{Median: m, P10: m, P90: m, N: 1} }
	rows := []SeedRow{
		{Policy: "oracle", Kind: KindOracle, Mid: spread(30), Late: spread(30), P95: spread(50)},
		{Policy: "github(k=12)", Kind: KindGitHub, Mid: spread(66), Late: spread(85), P95: spread(129)},
		{Policy: "ours(k=12)", Kind: KindOurs, Mid: spread(40), Late: spread(43.9), P95: spread(101)},
		{Policy: "serial", Kind: KindGitHub, Mid: spread(math.Inf(1)), Late: spread(math.Inf(1)), P95: spread(math.Inf(1))},
	}
	if rows[1].Steady() || !rows[2].Steady() || rows[3].Steady() {
		t.Errorf("Steady() = %v %v %v, want false true false", rows[1].Steady(), rows[2].Steady(), rows[3].Steady())
	}
	text := SeedReport{Rows: rows}.SteadyState()
	for _, want := range []string{"github(k=12) **no** (66.0 then 85.0 min, +29 %)", "ours(k=12) **yes**", "serial fell behind", "not every policy reached it"} {
		if !strings.Contains(text, want) {
			t.Errorf("SteadyState() = %q, want it to contain %q", text, want)
		}
	}
	if strings.Contains(text, "oracle") {
		t.Errorf("SteadyState() = %q names the Oracle", text)
	}
	text = SeedReport{Rows: rows[2:3]}.SteadyState()
	if !strings.Contains(text, "every policy that kept up reached it") {
		t.Errorf("SteadyState() = %q, want every policy at steady state", text)
	}
}
