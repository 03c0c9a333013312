package sim

import (
	"fmt"
	"sync"
)

// RunPreset runs every policy on the preset's workload with the same seed,
// up to workers simulations at once. Results are in the order of policies.
func RunPreset(p Preset, policies []PolicySpec, seed uint64, opts RunOptions, workers int) (Report, error) {
	reps, err := RunPresets([]Preset{p}, func(Preset) []PolicySpec { return policies }, seed, opts, workers)
	if err != nil {
		return Report{}, err
	}
	return reps[0], nil
}

// RunPresets runs the policies of several presets from one pool of
// workers, so a long simulation of one preset overlaps with the others.
// Each simulation is single-threaded and independent, so the reports do
// not depend on workers. A preset's MaxQueue applies unless opts sets one.
func RunPresets(presets []Preset, policies func(Preset) []PolicySpec, seed uint64, opts RunOptions, workers int) ([]Report, error) {
	type job struct {
		report, row int
		w           Workload
		pol         PolicySpec
		opts        RunOptions
	}
	reps := make([]Report, len(presets))
	var jobs []job
	for i, p := range presets {
		pols := policies(p)
		reps[i] = Report{Preset: p, Seed: seed, Results: make([]Result, len(pols)), Kinds: make([]Kind, len(pols))}
		o := opts
		if o.MaxQueue <= 0 {
			o.MaxQueue = p.MaxQueue
		}
		for j, pol := range pols {
			reps[i].Kinds[j] = pol.Kind
			jobs = append(jobs, job{report: i, row: j, w: p.Workload, pol: pol, opts: o})
		}
	}
	// Start the slowest simulations (our engine, big queues) first.
	order := make([]int, 0, len(jobs))
	for i, j := range jobs {
		if j.pol.Kind == KindOurs {
			order = append(order, i)
		}
	}
	for i, j := range jobs {
		if j.pol.Kind != KindOurs {
			order = append(order, i)
		}
	}
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	for _, k := range order {
		j := jobs[k]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			reps[j.report].Results[j.row], errs[k] = Run(j.w, j.pol, seed, j.opts)
		}()
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			return reps, fmt.Errorf("failed to simulate %s on %s: %w", jobs[k].pol.Label(), presets[jobs[k].report].Name, err)
		}
	}
	return reps, nil
}
