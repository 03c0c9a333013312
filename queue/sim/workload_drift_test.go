package sim

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func TestDriftingWorkloadFollowsItsPhases(t *testing.T) {
	t.Parallel()
	p, err := PresetByName("drifting")
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workload
	w.PRs = 40 * DriftingPRsPerDay
	a := w.Generate(3)
	if !reflect.DeepEqual(a, w.Generate(3)) {
		t.Fatal("same seed, different PRs")
	}
	if reflect.DeepEqual(a, w.Generate(4)) {
		t.Fatal("different seeds, same PRs")
	}
	// Arrivals and broken PRs per phase, over 40 days.
	count := map[string]float64{}
	bad := map[string]float64{}
	hours := map[string]float64{}
	for _, pr := range a {
		ph, _, _ := w.phaseAt(pr.Arrival)
		count[ph.Name]++
		if pr.Bad {
			bad[ph.Name]++
		}
	}
	days := a[len(a)-1].Arrival.Hours() / 24
	for _, ph := range w.Drift {
		hours[ph.Name] += ph.Length.Hours() * days
	}
	for _, ph := range w.Drift {
		rate := count[ph.Name] / hours[ph.Name]
		if want := 17 * ph.RateFactor; math.Abs(rate/want-1) > 0.12 {
			t.Errorf("%s: %.1f PRs/h, want %.1f", ph.Name, rate, want)
		}
	}
	if rate := float64(len(a)) / a[len(a)-1].Arrival.Hours(); math.Abs(rate/w.MeanRatePerHour()-1) > 0.03 {
		t.Errorf("mean rate %.2f/h, want %.2f", rate, w.MeanRatePerHour())
	}
	if perDay := float64(len(a)) / days; math.Abs(perDay/DriftingPRsPerDay-1) > 0.03 {
		t.Errorf("%.0f PRs per day, DriftingPRsPerDay says %d", perDay, DriftingPRsPerDay)
	}
	if share := bad["release rush"] / count["release rush"]; math.Abs(share-0.05) > 0.02 {
		t.Errorf("broken share in the rush %.3f, want 0.05", share)
	}
	// The flake storm is the two hours from 10:00, every day.
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{9 * time.Hour, 0.02}, {10 * time.Hour, 0.15}, {11*time.Hour + 59*time.Minute, 0.15}, {12 * time.Hour, 0.02},
		{3*24*time.Hour + 11*time.Hour, 0.15}} {
		if got := w.FlakeRateAt(c.at); got != c.want {
			t.Errorf("flake rate at %v = %g, want %g", c.at, got, c.want)
		}
	}
	if w.FlakeRateAt(0) != 0.02 || (Workload{FlakeRate: 0.07}).FlakeRateAt(11*time.Hour) != 0.07 {
		t.Error("the flake rate of a workload without drift changed")
	}
}

func TestDriftingRunsFlakeInTheStorm(t *testing.T) {
	t.Parallel()
	p, err := PresetByName("drifting")
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workload
	w.PRs = 300
	w.FailRate, w.FlakeRate = 0, 0
	for i := range w.Drift {
		w.Drift[i].FailRate = 0
		if w.Drift[i].Name != "flake storm" {
			w.Drift[i].FlakeRate = 0
		}
	}
	// No broken PRs and flakes only in the storm: GitHub-style rejects a PR
	// whose run failed at the head, so rejections come from the storm alone.
	rejected := func(w Workload) int {
		res, err := Run(w, PolicySpec{Kind: KindGitHub, Concurrency: 12}, 2, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Rejected
	}
	if n := rejected(w); n == 0 {
		t.Errorf("%d PRs rejected over a flake storm of 15 %%", n)
	}
	for i := range w.Drift {
		w.Drift[i].FlakeRate = 0
	}
	if n := rejected(w); n != 0 {
		t.Errorf("%d PRs rejected without flakes or broken PRs", n)
	}
}

func TestDriftValidation(t *testing.T) {
	t.Parallel()
	w := Workload{PRs: 10, RatePerHour: 10, CIMedian: time.Minute, Drift: []Phase{{Name: "x", Length: time.Hour, RateFactor: 0}}}
	if err := w.Validate(); err == nil {
		t.Error("a drift without arrivals was accepted")
	}
	w.Drift[0].RateFactor, w.Drift[0].FlakeRate = 1, 1
	if err := w.Validate(); err == nil {
		t.Error("a flake rate of 1 was accepted")
	}
	w.Drift[0].FlakeRate, w.Drift[0].Length = 0, 0
	if err := w.Validate(); err == nil {
		t.Error("an empty phase was accepted")
	}
}

func TestPresetsListDrifting(t *testing.T) {
	t.Parallel()
	p, err := PresetByName("drifting")
	if err != nil {
		t.Fatal(err)
	}
	if p.MultiSeedPRsOf() != 3*DriftingPRsPerDay {
		t.Errorf("drifting runs %d PRs per seed, want three days", p.MultiSeedPRsOf())
	}
}

// The drifting preset's rush brings more PRs per CI run than k=12 tests
// at once: ours(auto) is compared with a fixed setting sized for it too,
// so that "beats every fixed setting" is not a comparison with settings
// that cannot keep up with the rush (ours(auto)'s bound follows from the
// fixed settings, withAuto).
func TestDriftingComparesAFixedSettingSizedForItsRush(t *testing.T) {
	t.Parallel()
	p, err := PresetByName("drifting")
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workload
	peak := 0.0
	for _, ph := range w.Drift {
		peak = max(peak, ph.RateFactor*w.RatePerHour)
	}
	perRun := peak * w.CIMedian.Hours()
	sized := false
	var labels []string
	for _, c := range p.Ours {
		labels = append(labels, c.Label())
		if !c.Batch && float64(c.Concurrency) >= perRun {
			sized = true
		}
	}
	if !sized {
		t.Errorf("no fixed setting of ours tests the rush's %.0f PRs per CI run at once: %v", perRun, labels)
	}
}
