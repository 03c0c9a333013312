package sim

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func TestGenerateIsDeterministicAndMatchesTheParameters(t *testing.T) {
	t.Parallel()
	w := Workload{PRs: 20000, RatePerHour: 30, CIMedian: 20 * time.Minute, CISigma: 0.32, FailRate: 0.1,
		Targets: 64, ZipfS: 1.1, TargetsPerPR: 2, AllShare: 0.079}
	a, b := w.Generate(5), w.Generate(5)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different PRs")
	}
	if reflect.DeepEqual(a, w.Generate(6)) {
		t.Fatal("different seeds, same PRs")
	}
	bad, all, targets, top := 0, 0, 0, 0
	for i, p := range a {
		if i > 0 && p.Arrival < a[i-1].Arrival {
			t.Fatalf("arrivals out of order at %d", i)
		}
		if p.Bad {
			bad++
		}
		if p.All {
			all++
			continue
		}
		targets += len(p.Targets)
		for _, x := range p.Targets {
			if x == TargetName(0) {
				top++
			}
		}
	}
	n := float64(len(a))
	rate := n / a[len(a)-1].Arrival.Hours()
	checks := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"arrival rate per hour", rate, 30, 0.03},
		{"broken share", float64(bad) / n, 0.1, 0.06},
		{"ALL share", float64(all) / n, 0.079, 0.08},
		{"targets per non-ALL PR", float64(targets) / (n - float64(all)), 2, 0.05},
	}
	for _, c := range checks {
		if math.Abs(c.got/c.want-1) > c.tol {
			t.Errorf("%s = %.4f, want %.4f ± %.0f %%", c.name, c.got, c.want, 100*c.tol)
		}
	}
	if share := float64(top) / (n - float64(all)); share < 0.3 {
		t.Errorf("most popular target in %.2f of PRs; Zipf(1.1) over 64 should put it in about 0.4", share)
	}
}

func TestGenerateBurstsAndConflicts(t *testing.T) {
	t.Parallel()
	w := Workload{PRs: 120, Burst: Burst{Count: 50, Within: 5 * time.Minute, Every: 24 * time.Hour},
		CIMedian: 20 * time.Minute, ConflictRate: 1}
	prs := w.Generate(1)
	if len(prs) != 120 {
		t.Fatalf("%d PRs, want 120", len(prs))
	}
	for i, p := range prs {
		day := time.Duration(i/50) * 24 * time.Hour
		if p.Arrival < day || p.Arrival > day+5*time.Minute {
			t.Errorf("PR %d arrives at %v, want within 5 minutes of %v", i, p.Arrival, day)
		}
		for _, c := range p.Conflicts {
			if c >= i || prs[i].Arrival-prs[c].Arrival > 80*time.Minute {
				t.Errorf("PR %d conflicts with %d outside the window", i, c)
			}
		}
	}
	if len(prs[49].Conflicts) != 49 || len(prs[50].Conflicts) != 0 {
		t.Errorf("conflicts of the last PR of a burst %d (want 49), of the first of the next %d (want 0)",
			len(prs[49].Conflicts), len(prs[50].Conflicts))
	}
}

func TestWorkloadValidate(t *testing.T) {
	t.Parallel()
	good := Workload{PRs: 10, RatePerHour: 1, CIMedian: time.Minute}
	cases := []struct {
		name   string
		change func(*Workload)
		ok     bool
	}{
		{"valid", func(*Workload) {}, true},
		{"no PRs", func(w *Workload) { w.PRs = 0 }, false},
		{"no arrivals", func(w *Workload) { w.RatePerHour = 0 }, false},
		{"one burst too small", func(w *Workload) { w.RatePerHour, w.Burst = 0, Burst{Count: 5} }, false},
		{"no CI", func(w *Workload) { w.CIMedian = 0 }, false},
		{"fail rate 1", func(w *Workload) { w.FailRate = 1 }, false},
		{"targets without per-PR count", func(w *Workload) { w.Targets = 4 }, false},
		{"warm-up 1", func(w *Workload) { w.Warmup = 1 }, false},
		{"a backlog of all the PRs", func(w *Workload) { w.Queued = 10 }, true},
		{"a backlog beyond the PRs", func(w *Workload) { w.Queued = 11 }, false},
		{"a negative backlog", func(w *Workload) { w.Queued = -1 }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := good
			tc.change(&w)
			if err := w.Validate(); (err == nil) != tc.ok {
				t.Errorf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
	for _, p := range Presets() {
		if err := p.Workload.Validate(); err != nil {
			t.Errorf("preset %s: %v", p.Name, err)
		}
	}
}
