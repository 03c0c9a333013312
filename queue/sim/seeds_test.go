package sim

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestSpreadOf: the median and the 10th–90th percentiles interpolate
// between order statistics, whatever the input order; a seed on which a
// policy fell behind (+Inf) pushes the bounds it touches to +Inf.
func TestSpreadOf(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	cases := []struct {
		xs   []float64
		want Spread
	}{
		{[]float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, Spread{Median: 5.5, P10: 1.9, P90: 9.1, N: 10}},
		{[]float64{3}, Spread{Median: 3, P10: 3, P90: 3, N: 1}},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, inf}, Spread{Median: 5.5, P10: 1.9, P90: inf, N: 10}},
		{[]float64{inf, inf, inf, inf, inf, inf, 1, 2, 3, 4}, Spread{Median: inf, P10: 1.9, P90: inf, N: 10}},
	}
	for _, tc := range cases {
		in := append([]float64(nil), tc.xs...)
		got := SpreadOf(tc.xs)
		if !reflect.DeepEqual(tc.xs, in) {
			t.Errorf("SpreadOf modified its input: %v", tc.xs)
		}
		if got.N != tc.want.N || !near(got.Median, tc.want.Median) || !near(got.P10, tc.want.P10) || !near(got.P90, tc.want.P90) {
			t.Errorf("SpreadOf(%v) = %+v, want %+v", tc.xs, got, tc.want)
		}
	}
	if !math.IsNaN(Quantile7(nil, 0.5)) {
		t.Error("the quantile of nothing must be NaN")
	}
}

func near(a, b float64) bool {
	if math.IsInf(a, 1) || math.IsInf(b, 1) {
		return math.IsInf(a, 1) && math.IsInf(b, 1)
	}
	return math.Abs(a-b) < 1e-9
}

// TestSaturatedCapacityMatchesTheClosedForm: with a long backlog, prefix
// speculation's steady state is the closed form of saturated speculation
// (k = 5, p = 0.1, constant 30 min CI: 3.69 merges per CI duration, 7.4
// per hour), within the ±6 % a 4,000-PR backlog allows; the ramp-up is left
// out, so the measure does not depend on how long the queue had to fill.
func TestSaturatedCapacityMatchesTheClosedForm(t *testing.T) {
	t.Parallel()
	w := Workload{PRs: 1, RatePerHour: 1, CIMedian: 30 * time.Minute, FailRate: 0.1}.Saturated(4000)
	res, err := Run(w, PolicySpec{Kind: KindGitHub, Concurrency: 5, Rounds: true}, 1, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := SpeculationMergesPerRound(5, 0.1) * 2 // two CI durations per hour
	if res.Stopped != "" || math.Abs(res.Capacity-want)/want > 0.06 {
		t.Errorf("saturated capacity %.2f merges/h (stopped %q), want %.2f ± 6 %%", res.Capacity, res.Stopped, want)
	}
	normal, err := Run(Workload{PRs: 600, RatePerHour: 1, CIMedian: 30 * time.Minute, FailRate: 0.1},
		PolicySpec{Kind: KindGitHub, Concurrency: 5}, 1, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if normal.Capacity != 0 {
		t.Errorf("a run with arrivals reports a capacity %.2f; only saturated runs measure one", normal.Capacity)
	}
}

// TestRunPresetsSeedsAggregates: every policy runs on every seed, a
// policy that falls behind gets saturated runs, the figures are medians
// over the seeds, and the result does not depend on the number of workers.
func TestRunPresetsSeedsAggregates(t *testing.T) {
	t.Parallel()
	p := Preset{Name: "tiny", Workload: Workload{PRs: 120, RatePerHour: 6, CIMedian: 20 * time.Minute, CISigma: 0.32,
		FailRate: 0.05, FlakeRate: 0.02, Warmup: 0.1}, Concurrency: 4, MaxQueue: 30}
	pols := []PolicySpec{{Kind: KindOracle}, {Kind: KindSerial}, {Kind: KindGitHub, Concurrency: 4}}
	run := func(workers int) SeedReport {
		reps, err := RunPresetsSeeds([]Preset{p}, func(Preset) []PolicySpec { return pols }, Seeds(1, 5), RunOptions{}, workers)
		if err != nil {
			t.Fatal(err)
		}
		return reps[0]
	}
	rep := run(1)
	if again := run(4); !reflect.DeepEqual(stripWall(rep), stripWall(again)) {
		t.Fatal("the report depends on the number of workers")
	}
	serial, _ := rep.Row("serial")
	github, _ := rep.Row("github(k=4)")
	if len(serial.Results) != 5 || serial.Stable != 0 || !serial.Unstable() || serial.Saturated == nil {
		t.Fatalf("serial at 6 PR/h with 20 min CI must fall behind on every seed and be measured saturated: %+v", serial)
	}
	if c := serial.Capacity.Median; c < 2 || c > 3 { // one 21-min run per merge: about 2.7 merges/h
		t.Errorf("serial's saturated capacity %.2f merges/h, want about 2.7", c)
	}
	if github.Stable != 5 || github.Saturated != nil {
		t.Errorf("github(k=4) keeps up on every seed: %+v", github)
	}
	var p95 []float64
	for _, r := range github.Results {
		p95 = append(p95, r.P95.Minutes())
	}
	if got := SpreadOf(p95); got != github.P95 {
		t.Errorf("github's p95 spread %+v, want the spread of its seeds' p95 %+v", github.P95, got)
	}
	md := rep.Markdown()
	for _, want := range []string{"| serial (unstable) | 0/5 | – | – |", "| github(k=4) | 5/5 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}

func stripWall(r SeedReport) SeedReport {
	for i := range r.Rows {
		r.Rows[i].Results = append([]Result(nil), r.Rows[i].Results...)
		for k := range r.Rows[i].Results {
			r.Rows[i].Results[k].Wall = 0
		}
		r.Rows[i].Saturated = append([]Result(nil), r.Rows[i].Saturated...)
		for k := range r.Rows[i].Saturated {
			r.Rows[i].Saturated[k].Wall = 0
		}
	}
	return r
}

// TestBestOursIsChosenByMedians: a setting that wins on one seed but
// loses on most is not the best; BeatsMedian compares medians.
func TestBestOursIsChosenByMedians(t *testing.T) {
	t.Parallel()
	row := func(name string, kind Kind, p95s []float64, runs float64) SeedRow {
		r := SeedRow{Policy: name, Kind: kind, Results: make([]Result, len(p95s)), Stable: len(p95s)}
		r.P95 = SpreadOf(p95s)
		r.RunsPerMerge = SpreadOf([]float64{runs})
		return r
	}
	rep := SeedReport{Rows: []SeedRow{
		row("github", KindGitHub, []float64{100, 100, 100}, 1.5),
		row("lucky", KindOurs, []float64{50, 150, 150}, 1.0),
		row("steady", KindOurs, []float64{90, 90, 90}, 1.0),
	}}
	best, ok := rep.BestOurs()
	if !ok || best.Policy != "steady" {
		t.Errorf("best %q, want steady (median 90 < github's 100; lucky's median is 150)", best.Policy)
	}
	if won, why := BeatsMedian(rep.Rows[1], rep.Rows[0]); won || !strings.Contains(why, "median p95 150") {
		t.Errorf("lucky beats github: %v (%s)", won, why)
	}
}

// TestSeedReportGitHubColumns: the GitHub figures of our engine are
// medians over the seeds with their spread, taken from the saturated run
// on a seed where it fell behind (marked *, like CI runs), and "–" for
// the baselines, which have no GitHub.
func TestSeedReportGitHubColumns(t *testing.T) {
	t.Parallel()
	q := Quantile{D: 30 * time.Minute}
	ours := func(w, c float64, peak int) Result {
		return Result{Merged: 10, P50: q, P95: q, WritesPerMerge: w, CallsPerMerge: c, PeakHourlyWrites: peak}
	}
	stopped := ours(99, 99, 9999) // measured before the cap: ignored
	stopped.Stopped = "fell behind"
	rep := SeedReport{Seeds: Seeds(1, 3), Rows: []SeedRow{
		{Policy: "github(k=4)", Kind: KindGitHub, Results: []Result{{Merged: 10, P50: q, P95: q}, {Merged: 10, P50: q, P95: q}, {Merged: 10, P50: q, P95: q}}},
		{Policy: "ours(k=4)", Kind: KindOurs, Results: []Result{ours(5, 12, 300), ours(6, 13, 320), stopped},
			Saturated: []Result{{}, {}, ours(9, 20, 600)}},
	}}
	rep.aggregate()
	row, _ := rep.Row("ours(k=4)")
	if row.WritesPerMerge.Median != 6 || row.CallsPerMerge.Median != 13 || row.PeakHourlyWrites.Median != 320 {
		t.Errorf("medians %+v %+v %+v, want 6, 13 and 320", row.WritesPerMerge, row.CallsPerMerge, row.PeakHourlyWrites)
	}
	md := rep.Markdown()
	for _, want := range []string{
		"| GitHub writes/merge | GitHub calls/merge | peak GitHub writes/h |",
		"| 6.00 (5.20–8.40)* | 13.0 (12.2–18.6)* | 320 (304–544)* |",
		"| github(k=4) | 3/3 | 30.0 (30.0–30.0) | 30.0 (30.0–30.0) | – | – | 0.00 (0.00–0.00) | 0.0 (0.0–0.0) | – | – | – |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}
