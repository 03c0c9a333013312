package autotune

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// feed simulates a queue's events for hours: Poisson arrivals at rate,
// each PR broken with probability p; one run per PR of its own tree, with
// log-normal durations (median, σ 0.32), a good tree's run flaking with
// probability f; a PR concludes when its run finishes (merged unless
// broken or flaked).
func feed(o *Observer, rng *rand.Rand, from time.Time, hours, rate, p, f float64, median time.Duration, firstPR int) int {
	at := from
	pr := firstPR
	for {
		at = at.Add(time.Duration(rng.ExpFloat64() / rate * float64(time.Hour)))
		if at.Sub(from).Hours() > hours {
			return pr
		}
		pr++
		o.Arrived(at)
		bad := rng.Float64() < p
		dur := time.Duration(float64(median) * math.Exp(0.32*rng.NormFloat64()))
		passed := !bad && rng.Float64() >= f
		end := at.Add(dur)
		o.RunFinished(RunResult{Started: at, Finished: end, Passed: passed, Tree: []int{pr}})
		if !bad && !passed {
			// A flake: the retry passes and the PR merges.
			o.RunFinished(RunResult{Started: end, Finished: end.Add(dur), Passed: true, Tree: []int{pr}})
			o.Concluded(end.Add(dur), pr, true)
			continue
		}
		o.Concluded(end, pr, passed)
	}
}

func TestObserverEstimatesTheTraffic(t *testing.T) {
	t.Parallel()
	o := NewObserver(200 * time.Hour)
	rng := rand.New(rand.NewPCG(1, 2))
	feed(o, rng, t0, 200, 30, 0.08, 0.10, 20*time.Minute, 0)
	obs := o.Observe(t0.Add(200 * time.Hour))
	checks := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"arrivals per hour", obs.ArrivalsPerHour, 30, 0.05},
		{"CI median (min)", obs.CIMedian.Minutes(), 20, 0.05},
		{"CI sigma", obs.CISigma, 0.32, 0.1},
		{"failure rate", obs.FailRate, 0.08, 0.15},
		{"flake rate", obs.FlakeRate, 0.10 / (1 + 0.10), 0.15}, // each flake adds a passing retry
	}
	for _, c := range checks {
		if math.Abs(c.got/c.want-1) > c.tol {
			t.Errorf("%s = %.4f, want %.4f ± %.0f %%", c.name, c.got, c.want, 100*c.tol)
		}
	}
}

func TestObserverWindowSlides(t *testing.T) {
	t.Parallel()
	o := NewObserver(3 * time.Hour)
	rng := rand.New(rand.NewPCG(3, 4))
	last := feed(o, rng, t0, 10, 20, 0.05, 0.01, 20*time.Minute, 0)
	calm := o.Observe(t0.Add(10 * time.Hour))
	// A flake storm with three times the arrivals: after three hours, the
	// window holds only the storm.
	feed(o, rng, t0.Add(10*time.Hour), 3, 60, 0.05, 0.25, 20*time.Minute, last)
	storm := o.Observe(t0.Add(13 * time.Hour))
	if calm.FlakeRate > 0.04 || storm.FlakeRate < 0.15 {
		t.Errorf("flake rate %.3f before the storm and %.3f in it, want about 0.01 and 0.20", calm.FlakeRate, storm.FlakeRate)
	}
	if math.Abs(storm.ArrivalsPerHour/60-1) > 0.15 || math.Abs(calm.ArrivalsPerHour/20-1) > 0.25 {
		t.Errorf("arrivals %.1f/h before and %.1f/h in the storm, want 20 and 60", calm.ArrivalsPerHour, storm.ArrivalsPerHour)
	}
	if storm.Window != 3*time.Hour {
		t.Errorf("window %v, want 3h", storm.Window)
	}
	if empty := NewObserver(time.Hour).Observe(t0); empty != (Observation{}) {
		t.Errorf("an observer without events observed %+v", empty)
	}
}

func TestObserverLeavesUndecidedTreesOut(t *testing.T) {
	t.Parallel()
	o := NewObserver(time.Hour)
	// Run 1 failed with PRs 1 and 2; PR 2 is still queued: undecided.
	o.RunFinished(RunResult{Started: t0, Finished: t0.Add(10 * time.Minute), Tree: []int{1, 2}})
	o.Concluded(t0.Add(11*time.Minute), 1, true)
	if obs := o.Observe(t0.Add(12 * time.Minute)); obs.FlakeRuns != 0 || obs.FlakeRate != 0 {
		t.Fatalf("an undecided tree counted: %+v", obs)
	}
	// PR 2 passes in a later tree: run 1 was a flake.
	o.RunFinished(RunResult{Started: t0.Add(11 * time.Minute), Finished: t0.Add(20 * time.Minute), Passed: true, Tree: []int{2}})
	if obs := o.Observe(t0.Add(21 * time.Minute)); obs.FlakeRuns != 2 || obs.FlakeRate != 0.5 {
		t.Fatalf("flake rate %.2f over %d runs, want 0.5 over 2", obs.FlakeRate, obs.FlakeRuns)
	}
	// A tree with a rejected PR is no flake.
	o.RunFinished(RunResult{Started: t0.Add(20 * time.Minute), Finished: t0.Add(30 * time.Minute), Tree: []int{3}})
	o.Concluded(t0.Add(30*time.Minute), 3, false)
	if obs := o.Observe(t0.Add(31 * time.Minute)); obs.FlakeRuns != 2 || obs.FailRate != 0.5 {
		t.Fatalf("after a rejection: %+v", obs)
	}
}

func TestFittedObservationsShareNearbyValues(t *testing.T) {
	t.Parallel()
	a := Observation{Window: time.Hour, Arrivals: 17, ArrivalsPerHour: 17, CIMedian: 20 * time.Minute, CISigma: 0.31, FailRate: 0.049, FlakeRate: 0.021}
	b := Observation{Window: 2 * time.Hour, Arrivals: 35, ArrivalsPerHour: 17.5, CIMedian: 20*time.Minute + 20*time.Second, CISigma: 0.33, FailRate: 0.052, FlakeRate: 0.019}
	if a.Fitted() != b.Fitted() {
		t.Errorf("nearby observations fit apart: %+v and %+v", a.Fitted(), b.Fitted())
	}
	c := a
	c.FlakeRate = 0.15
	if a.Fitted() == c.Fitted() || c.Fitted().FlakeRate != 0.12 && c.Fitted().FlakeRate != 0.18 {
		t.Errorf("a flake storm fits as %+v", c.Fitted())
	}
	d := a
	d.ArrivalsPerHour = 51
	if a.Fitted().ArrivalsPerHour == d.Fitted().ArrivalsPerHour || math.Abs(d.Fitted().ArrivalsPerHour/51-1) > 0.08 {
		t.Errorf("a release rush fits as %.1f/h", d.Fitted().ArrivalsPerHour)
	}
}

func TestObserverKeepsEnoughOfAQuietQueue(t *testing.T) {
	t.Parallel()
	o := NewObserver(4 * time.Hour)
	feed(o, rand.New(rand.NewPCG(5, 6)), t0, 100, 2, 0.05, 0.01, 10*time.Minute, 0)
	obs := o.Observe(t0.Add(100 * time.Hour))
	if obs.Arrivals < MinKept || obs.Window <= 4*time.Hour {
		t.Fatalf("kept %d arrivals over %v, want at least %d", obs.Arrivals, obs.Window, MinKept)
	}
	if math.Abs(obs.ArrivalsPerHour/2-1) > 0.35 {
		t.Errorf("%.2f arrivals per hour, want about 2", obs.ArrivalsPerHour)
	}
}

// TestObserverSeesFlakesThatRejectedPRs: at depth 0 every flake rejects
// its PR, so the observer sees failures and no flake; once the rejected
// PRs come back unchanged and merge (ConcludedHead at the same head), the
// rejections count as flakes and the failure rate falls to the broken
// PRs' share. A PR fixed before merging (another head) stays a failure.
func TestObserverSeesFlakesThatRejectedPRs(t *testing.T) {
	t.Parallel()
	o := NewObserver(10 * time.Hour)
	at := t0
	head := func(pr int) string { return "sha" + strconv.Itoa(pr) }
	for pr := 1; pr <= 100; pr++ {
		at = at.Add(5 * time.Minute)
		o.Arrived(at)
		passed := pr%10 != 0 // PRs 10, 20, … fail their run
		o.RunFinished(RunResult{Started: at.Add(-20 * time.Minute), Finished: at, Passed: passed, Tree: []int{pr}})
		o.ConcludedHead(at, pr, head(pr), passed)
	}
	before := o.Observe(at)
	if math.Abs(before.FailRate-0.10) > 1e-9 || before.FlakeRate != 0 {
		t.Fatalf("before the resubmissions: failure rate %.3f, flake rate %.3f; want 0.10 and 0", before.FailRate, before.FlakeRate)
	}
	// PRs 10..80 come back unchanged and pass: flakes. PR 90 is fixed
	// (a new head) and passes; PR 100 stays rejected.
	for pr := 10; pr <= 90; pr += 10 {
		at = at.Add(5 * time.Minute)
		h := head(pr)
		if pr == 90 {
			h += "-fixed"
		}
		o.RunFinished(RunResult{Started: at.Add(-20 * time.Minute), Finished: at, Passed: true, Tree: []int{pr}})
		o.ConcludedHead(at, pr, h, true)
	}
	after := o.Observe(at)
	if math.Abs(after.FailRate-2.0/101) > 1e-9 {
		t.Errorf("failure rate %.4f after 8 flaky rejections came back, want 2/101 (PRs 90 and 100 failed)", after.FailRate)
	}
	if math.Abs(after.FlakeRate-8.0/107) > 1e-9 {
		t.Errorf("flake rate %.4f, want the 8 rejected runs of unchanged PRs counted as flakes and PR 90's failure on its old head not (8 of 107)", after.FlakeRate)
	}
	// Concluded, which knows no head, infers nothing.
	o2 := NewObserver(10 * time.Hour)
	o2.Arrived(t0)
	o2.RunFinished(RunResult{Started: t0, Finished: t0.Add(time.Minute), Passed: false, Tree: []int{1}})
	o2.Concluded(t0.Add(time.Minute), 1, false)
	o2.Concluded(t0.Add(2*time.Minute), 1, true)
	if got := o2.Observe(t0.Add(3 * time.Minute)); got.FailRate != 0.5 {
		t.Errorf("without heads: failure rate %.2f, want 0.5 (one rejection, one merge)", got.FailRate)
	}
}

// TestObserverMeasuresRatesOnMoreThanItsWindow: a 2 % failure rate is 0
// in a four-hour window that happens to hold no failure; the observer
// measures it on the latest RateKept conclusions, no older than
// RateMaxAge, while the arrival rate stays the window's.
func TestObserverMeasuresRatesOnMoreThanItsWindow(t *testing.T) {
	t.Parallel()
	o := NewObserver(4 * time.Hour)
	// 20 PRs an hour for 10 hours; every 50th fails, but none in the
	// last four hours (PRs 121..200).
	at := t0
	for pr := 1; pr <= 200; pr++ {
		at = at.Add(3 * time.Minute)
		o.Arrived(at)
		passed := pr%50 != 0 || pr > 120
		o.RunFinished(RunResult{Started: at.Add(-20 * time.Minute), Finished: at, Passed: passed, Tree: []int{pr}})
		o.Concluded(at, pr, passed)
	}
	obs := o.Observe(at)
	if obs.Concluded != 200 || math.Abs(obs.FailRate-2.0/200) > 1e-9 {
		t.Errorf("failure rate %.4f over %d conclusions, want 2 failures of 200 (the latest RateKept)", obs.FailRate, obs.Concluded)
	}
	if obs.Window != 4*time.Hour || math.Abs(obs.ArrivalsPerHour-20) > 0.5 {
		t.Errorf("arrivals %.1f/h over %v, want the window's 20/h over 4h", obs.ArrivalsPerHour, obs.Window)
	}
	// 250 more PRs, all good: only the latest RateKept count.
	for pr := 201; pr <= 450; pr++ {
		at = at.Add(3 * time.Minute)
		o.Arrived(at)
		o.RunFinished(RunResult{Started: at.Add(-20 * time.Minute), Finished: at, Passed: true, Tree: []int{pr}})
		o.Concluded(at, pr, true)
	}
	if obs := o.Observe(at); obs.Concluded != RateKept || obs.Runs != RateKept || obs.FailRate != 0 {
		t.Errorf("kept %d conclusions and %d runs, failure rate %.3f; want the latest %d, none failed", obs.Concluded, obs.Runs, obs.FailRate, RateKept)
	}
	// A quiet queue: two PRs an hour for 40 hours, the failures in the
	// first ten. Those older than RateMaxAge no longer count.
	q := NewObserver(4 * time.Hour)
	at = t0
	for pr := 1; pr <= 80; pr++ {
		at = at.Add(30 * time.Minute)
		q.Arrived(at)
		passed := pr > 20 || pr%5 != 0
		q.RunFinished(RunResult{Started: at.Add(-10 * time.Minute), Finished: at, Passed: passed, Tree: []int{pr}})
		q.Concluded(at, pr, passed)
	}
	if obs := q.Observe(at); obs.FailRate != 0 || obs.Concluded != 49 {
		t.Errorf("quiet queue: failure rate %.3f over %d conclusions, want 0 over the last day's 49 (both ends)", obs.FailRate, obs.Concluded)
	}
}
