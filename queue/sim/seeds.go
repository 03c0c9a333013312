package sim

import (
	"fmt"
	"math"
	"sort"
	"sync"
)

// Spread summarizes one figure over seeds: the median and the 10th and
// 90th percentiles, by linear interpolation between order statistics (the
// "type 7" estimator of R and NumPy). +Inf values (a latency percentile of
// a seed on which the policy was unstable) sort last; an interpolation
// touching one is +Inf.
type Spread struct {
	Median, P10, P90 float64
	// N is the number of values (seeds).
	N int
}

// SpreadOf computes the Spread of xs (which it does not modify).
func SpreadOf(xs []float64) Spread {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return Spread{Median: Quantile7(s, 0.5), P10: Quantile7(s, 0.1), P90: Quantile7(s, 0.9), N: len(s)}
}

// Quantile7 is the q-quantile of sorted values, interpolated linearly
// between the order statistics around (n−1)q; NaN for no values.
func Quantile7(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := (float64(len(sorted)) - 1) * q
	lo := int(math.Floor(h))
	hi := min(lo+1, len(sorted)-1)
	frac := h - float64(lo)
	if frac == 0 || lo == hi {
		return sorted[lo]
	}
	if math.IsInf(sorted[lo], 1) || math.IsInf(sorted[hi], 1) {
		return math.Inf(1)
	}
	return sorted[lo] + frac*(sorted[hi]-sorted[lo])
}

// SeedRow is one policy on one preset over every seed.
type SeedRow struct {
	Policy string
	Kind   Kind
	// Auto marks ours(auto): compared with the fixed settings, never one
	// of them (BestOurs).
	Auto bool
	// Results are the runs on each seed, in the order of SeedReport.Seeds.
	Results []Result
	// Saturated are the saturated runs (Workload.Saturated) on each seed,
	// made only when the policy was unstable on some seed; nil otherwise.
	Saturated []Result
	// Stable counts the seeds on which the policy kept up.
	Stable int
	// P50, P95 and P99 are time-to-merge percentiles in minutes, +Inf on
	// a seed where the policy was unstable; P50x and P95x the same as
	// multiples of the Oracle's on that seed.
	P50, P95, P99, P50x, P95x Spread
	// RunsPerMerge and MinutesPerMerge are CI runs and minutes per merged
	// PR: of the run where it kept up, of the saturated run where it did
	// not (its steady state, not the ramp-up before the cap).
	RunsPerMerge, MinutesPerMerge Spread
	// WritesPerMerge, CallsPerMerge and PeakHourlyWrites are the GitHub
	// cost of our engine (Result), taken like RunsPerMerge; empty (N = 0)
	// for the baselines.
	WritesPerMerge, CallsPerMerge, PeakHourlyWrites Spread
	// Capacity is the saturated merges per hour (only with Saturated).
	Capacity Spread
	// Mid and Late are the median time-to-merge (minutes) of the PRs that
	// arrived in the second and in the last third (Result.Thirds), +Inf on
	// a seed where the policy was unstable.
	Mid, Late Spread
	// WronglyMerged, FalseRejections and Violations are sums over seeds
	// (of the normal and the saturated runs).
	WronglyMerged, FalseRejections, Violations int
	// FirstViolation is an example violation, if any.
	FirstViolation string
}

// Unstable reports whether the policy fell behind on most seeds (its
// median latency is unbounded).
func (r SeedRow) Unstable() bool { return math.IsInf(r.P95.Median, 1) }

// SeedReport compares every policy on one preset over several seeds.
type SeedReport struct {
	Preset Preset
	Seeds  []uint64
	Rows   []SeedRow
}

// Seeds returns n consecutive seeds starting at first.
func Seeds(first uint64, n int) []uint64 {
	out := make([]uint64, max(n, 0))
	for i := range out {
		out[i] = first + uint64(i)
	}
	return out
}

// RunPresetsSeeds runs the policies of each preset on every seed, then a
// saturated run (Workload.Saturated with Preset.SaturatedBacklog) on every
// seed of each policy that was unstable on at least one, all from one pool
// of workers. Every simulation is single-threaded and independent and its
// result lands in a fixed slot, so the reports are a pure function of the
// presets, policies and seeds, whatever workers is.
func RunPresetsSeeds(presets []Preset, policies func(Preset) []PolicySpec, seeds []uint64, opts RunOptions, workers int) ([]SeedReport, error) {
	if len(seeds) == 0 {
		return nil, fmt.Errorf("no seeds to run")
	}
	reps := make([]SeedReport, len(presets))
	pols := make([][]PolicySpec, len(presets))
	var jobs []seedJob
	for i, p := range presets {
		pols[i] = policies(p)
		reps[i] = SeedReport{Preset: p, Seeds: seeds, Rows: make([]SeedRow, len(pols[i]))}
		o := opts
		if o.MaxQueue <= 0 {
			o.MaxQueue = p.MaxQueue
		}
		for j, pol := range pols[i] {
			row := &reps[i].Rows[j]
			row.Policy, row.Kind, row.Results = pol.Label(), pol.Kind, make([]Result, len(seeds))
			row.Auto = pol.Ours.AutoTune
			for k, seed := range seeds {
				jobs = append(jobs, seedJob{w: p.Workload, pol: pol, seed: seed, opts: o, out: &row.Results[k],
					what: fmt.Sprintf("%s on %s, seed %d", pol.Label(), p.Name, seed)})
			}
		}
	}
	if err := runJobs(jobs, workers); err != nil {
		return reps, err
	}
	jobs = nil
	for i, p := range presets {
		sat := p.Workload.Saturated(p.SaturatedBacklog())
		for j, pol := range pols[i] {
			row := &reps[i].Rows[j]
			if pol.Kind == KindOracle || !anyStopped(row.Results) {
				continue
			}
			row.Saturated = make([]Result, len(seeds))
			for k, seed := range seeds {
				jobs = append(jobs, seedJob{w: sat, pol: pol, seed: seed, opts: opts, out: &row.Saturated[k],
					what: fmt.Sprintf("%s saturated on %s, seed %d", pol.Label(), p.Name, seed)})
			}
		}
	}
	if err := runJobs(jobs, workers); err != nil {
		return reps, err
	}
	for i := range reps {
		reps[i].aggregate()
	}
	return reps, nil
}

type seedJob struct {
	w    Workload
	pol  PolicySpec
	seed uint64
	opts RunOptions
	out  *Result
	what string
}

// runJobs runs the jobs, up to workers at once, the slowest kind (our
// engine) first.
func runJobs(jobs []seedJob, workers int) error {
	order := make([]int, 0, len(jobs))
	for _, ours := range []bool{true, false} {
		for i, j := range jobs {
			if (j.pol.Kind == KindOurs) == ours {
				order = append(order, i)
			}
		}
	}
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	for _, k := range order {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			j := jobs[k]
			res, err := Run(j.w, j.pol, j.seed, j.opts)
			*j.out = res
			if err != nil {
				errs[k] = fmt.Errorf("failed to simulate %s: %w", j.what, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func anyStopped(rs []Result) bool {
	for _, r := range rs {
		if r.Stopped != "" {
			return true
		}
	}
	return false
}

// aggregate fills each row's spreads from its per-seed results.
func (r *SeedReport) aggregate() {
	var oracle []Result
	for _, row := range r.Rows {
		if row.Kind == KindOracle {
			oracle = row.Results
		}
	}
	inf := math.Inf(1)
	for i := range r.Rows {
		row := &r.Rows[i]
		n := len(row.Results)
		p50, p95, p99 := make([]float64, n), make([]float64, n), make([]float64, n)
		p50x, p95x := make([]float64, 0, n), make([]float64, 0, n)
		runs, mins, capa := make([]float64, n), make([]float64, n), []float64(nil)
		mid, late := make([]float64, n), make([]float64, n)
		var writes, calls, peak []float64
		for k, res := range row.Results {
			all := []Result{res}
			use := res
			if res.Stopped == "" {
				row.Stable++
				p50[k], p95[k], p99[k] = res.P50.Minutes(), res.P95.Minutes(), res.P99.Minutes()
				mid[k], late[k] = res.Thirds[0].Minutes(), res.Thirds[1].Minutes()
			} else {
				p50[k], p95[k], p99[k] = inf, inf, inf
				mid[k], late[k] = inf, inf
			}
			if row.Saturated != nil {
				sat := row.Saturated[k]
				all = append(all, sat)
				capa = append(capa, sat.Capacity)
				if res.Stopped != "" {
					use = sat
				}
			}
			runs[k], mins[k] = use.RunsPerMerge, use.MinutesPerMerge
			if row.Kind == KindOurs {
				writes = append(writes, use.WritesPerMerge)
				calls = append(calls, use.CallsPerMerge)
				peak = append(peak, float64(use.PeakHourlyWrites))
			}
			if oracle != nil && oracle[k].P50.D > 0 && oracle[k].P95.D > 0 {
				p50x = append(p50x, p50[k]/oracle[k].P50.Minutes())
				p95x = append(p95x, p95[k]/oracle[k].P95.Minutes())
			}
			for _, x := range all {
				row.WronglyMerged += x.WronglyMerged
				row.FalseRejections += x.FalseRejections
				row.Violations += len(x.Violations)
				if row.FirstViolation == "" && len(x.Violations) > 0 {
					row.FirstViolation = x.Violations[0]
				}
			}
		}
		row.P50, row.P95, row.P99 = SpreadOf(p50), SpreadOf(p95), SpreadOf(p99)
		row.P50x, row.P95x = SpreadOf(p50x), SpreadOf(p95x)
		row.RunsPerMerge, row.MinutesPerMerge = SpreadOf(runs), SpreadOf(mins)
		row.Mid, row.Late = SpreadOf(mid), SpreadOf(late)
		if writes != nil {
			row.WritesPerMerge, row.CallsPerMerge, row.PeakHourlyWrites = SpreadOf(writes), SpreadOf(calls), SpreadOf(peak)
		}
		if capa != nil {
			row.Capacity = SpreadOf(capa)
		}
	}
}
