package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Phase is one stretch of a drifting workload (Workload.Drift): for Length,
// PRs arrive at RateFactor × Workload.RatePerHour, a PR arriving then is
// broken with probability FailRate, and a run started then flakes with
// probability FlakeRate.
type Phase struct {
	Name       string
	Length     time.Duration
	RateFactor float64
	FailRate   float64
	FlakeRate  float64
}

// cycle is the length of one pass through the phases.
func (w Workload) cycle() time.Duration {
	var total time.Duration
	for _, p := range w.Drift {
		total += p.Length
	}
	return total
}

// phaseAt returns the phase in force at t (the phases repeat) and when it
// ends; ok is false for a workload without drift.
func (w Workload) phaseAt(t time.Duration) (p Phase, end time.Duration, ok bool) {
	c := w.cycle()
	if c <= 0 {
		return Phase{}, 0, false
	}
	start := t - t%c
	for _, p := range w.Drift {
		if t < start+p.Length {
			return p, start + p.Length, true
		}
		start += p.Length
	}
	return w.Drift[len(w.Drift)-1], start, true // not reached: t%c < c
}

// FailRateAt is the share of broken PRs among those arriving at t.
func (w Workload) FailRateAt(t time.Duration) float64 {
	if p, _, ok := w.phaseAt(t); ok {
		return p.FailRate
	}
	return w.FailRate
}

// FlakeRateAt is the probability that a run started at t flakes.
func (w Workload) FlakeRateAt(t time.Duration) float64 {
	if p, _, ok := w.phaseAt(t); ok {
		return p.FlakeRate
	}
	return w.FlakeRate
}

// driftArrivals draws n arrivals of the non-homogeneous Poisson process
// whose rate is RatePerHour × the phase's RateFactor: each gap consumes an
// Exp(1) amount of integrated rate, phase by phase.
func (w Workload) driftArrivals(rng *rand.Rand, n int) []time.Duration {
	out := make([]time.Duration, 0, n)
	t := time.Duration(0)
	for range n {
		need := rng.ExpFloat64()
		for {
			p, end, _ := w.phaseAt(t)
			perHour := w.RatePerHour * p.RateFactor
			room := perHour * (end - t).Hours()
			if need < room {
				t += time.Duration(need / perHour * float64(time.Hour))
				break
			}
			need -= room
			t = end
		}
		out = append(out, t)
	}
	return out
}

// validateDrift reports the first unusable phase.
func (w Workload) validateDrift() error {
	rated := false
	for i, p := range w.Drift {
		switch {
		case p.Length <= 0:
			return fmt.Errorf("workload: phase %d (%s) must have a positive Length", i, p.Name)
		case p.RateFactor < 0:
			return fmt.Errorf("workload: phase %d (%s) must not have a negative RateFactor", i, p.Name)
		case p.FailRate < 0 || p.FailRate >= 1, p.FlakeRate < 0 || p.FlakeRate >= 1:
			return fmt.Errorf("workload: phase %d (%s): FailRate and FlakeRate must be in [0, 1)", i, p.Name)
		}
		rated = rated || p.RateFactor > 0
	}
	if len(w.Drift) > 0 && (!rated || w.RatePerHour <= 0 || w.Burst.Count > 0) {
		return fmt.Errorf("workload: a drift needs a RatePerHour, a phase with arrivals and no bursts")
	}
	return nil
}

// MeanRatePerHour is the arrival rate averaged over a drift's cycle
// (RatePerHour without drift).
func (w Workload) MeanRatePerHour() float64 {
	c := w.cycle()
	if c <= 0 {
		return w.RatePerHour
	}
	sum := 0.0
	for _, p := range w.Drift {
		sum += p.RateFactor * p.Length.Hours()
	}
	return w.RatePerHour * sum / c.Hours()
}

// describeDrift states the phases in one clause.
func (w Workload) describeDrift() string {
	parts := make([]string, 0, len(w.Drift))
	for _, p := range w.Drift {
		parts = append(parts, fmt.Sprintf("%s %v at %g/h, p %g %%, f %g %%", p.Name, p.Length,
			w.RatePerHour*p.RateFactor, 100*p.FailRate, 100*p.FlakeRate))
	}
	return fmt.Sprintf("drifting every %v: %s", w.cycle(), strings.Join(parts, "; "))
}
