package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/mergequeue/mq/queue/sim"
)

// executeFloor prints the in-order floors of a preset (-floor): how close
// to the Oracle any queue that merges in dependency order (SPEC §5.5) can
// come on its workload, per seed, knowing the broken PRs on arrival,
// after a run alone, or as SPEC §5.3 decides them (sim.InOrderFloor).
func executeFloor(o options, stdout io.Writer) error {
	p, err := sim.PresetByName(o.preset)
	if err != nil {
		return err
	}
	w := p.Workload
	w.PRs = o.prs
	if w.PRs == 0 {
		w.PRs = p.MultiSeedPRsOf()
	}
	seeds := sim.Seeds(o.seed, o.seeds)
	if len(seeds) == 0 {
		return fmt.Errorf("-seeds must be positive, got %d", o.seeds)
	}
	fmt.Fprintf(stdout, "## In-order floors of %s: %d PRs per seed, seeds %d–%d\n\n", p.Name, w.PRs, seeds[0], seeds[len(seeds)-1])
	fmt.Fprintln(stdout, "Time-to-merge over the Oracle's (same CI durations) of a queue that merges each PR only after the PRs ahead that overlap it, runs without limit and takes one CI run per good PR.")
	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, "| queue | median p50 ×O | median p95 ×O | seeds within 1.1× p50 and 1.3× p95 | p50 ×O per seed |")
	fmt.Fprintln(stdout, "|---|--:|--:|--:|---|")
	for _, mode := range sim.FloorModes {
		var p50s, p95s []float64
		within := 0
		per := ""
		for _, s := range seeds {
			a, b := sim.FloorRatios(w, s, mode)
			p50s, p95s = append(p50s, a), append(p95s, b)
			if a <= 1.1 && b <= 1.3 {
				within++
			}
			per += fmt.Sprintf(" %.2f", a)
		}
		fmt.Fprintf(stdout, "| %s | %.2f | %.2f | %d of %d |%s |\n", mode, medianOf(p50s), medianOf(p95s), within, len(p50s), per)
	}
	return nil
}

// medianOf is the median of v (the mean of the middle two for an even count).
func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
