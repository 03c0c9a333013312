package sim

import (
	"math"
	"time"
)

// Closed forms the simulator is validated against (background note §A5).

// PollaczekKhinchine is the mean time in system of the serial FIFO queue
// on w, an M/G/1 queue: T = E[S] + λE[S²] / (2(1−ρ)) with log-normal
// service S (E[S] = m·e^{σ²/2}, E[S²] = m²·e^{2σ²}). It is +Inf when
// ρ = λE[S] ≥ 1.
func PollaczekKhinchine(w Workload) time.Duration {
	m := w.CIMedian.Hours()
	es := m * math.Exp(w.CISigma*w.CISigma/2)
	es2 := m * m * math.Exp(2*w.CISigma*w.CISigma)
	rho := w.RatePerHour * es
	if rho >= 1 {
		return time.Duration(math.MaxInt64)
	}
	t := es + w.RatePerHour*es2/(2*(1-rho))
	return time.Duration(t * float64(time.Hour))
}

// SpeculationMergesPerRound is the expected number of merges per CI
// duration of saturated prefix speculation with k runs and failure
// probability p: (1−p)(1−(1−p)^k)/p (k when p = 0).
func SpeculationMergesPerRound(k int, p float64) float64 {
	if p == 0 {
		return float64(k)
	}
	return (1 - p) * (1 - math.Pow(1-p, float64(k))) / p
}

// RecursiveHalvingCost is the expected number of builds per PR when
// batches of b PRs, each broken with probability p, are tested and failed
// batches are split in halves recursively (bors): with C(1) = 1 and
// C(n) = 2·P(n fails) − 1 + C(⌊n/2⌋) + C(n − ⌊n/2⌋), the cost is C(b)/b.
func RecursiveHalvingCost(b int, p float64) float64 {
	var c func(n int) float64
	c = func(n int) float64 {
		if n <= 1 {
			return 1
		}
		h := n / 2
		return 2*(1-math.Pow(1-p, float64(n))) - 1 + c(h) + c(n-h)
	}
	return c(b) / float64(b)
}
