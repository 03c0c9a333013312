package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mergequeue/mq/queue/sim"
)

// executeSeeds runs the chosen presets on o.seeds seeds and prints, per
// preset, the table of medians and spreads, the best setting of ours (by
// medians) and the targets; -svg also writes the plot. done closes when the
// validation (if any) has finished and filled checks and checkErr.
func executeSeeds(o options, stdout, stderr io.Writer, done <-chan struct{}, checks *[]sim.Check, checkErr *error) error {
	presets, err := choosePresets(o)
	if err != nil {
		<-done
		return err
	}
	started := time.Now()
	var selectErr error
	reps, err := sim.RunPresetsSeeds(presets, func(p sim.Preset) []sim.PolicySpec {
		pols, err := selectPolicies(p, o)
		selectErr = errors.Join(selectErr, err)
		return pols
	}, sim.Seeds(o.seed, o.seeds), sim.RunOptions{MaxDrain: o.maxDrain, MaxQueue: o.maxQueue, Resubmit: true, CommonRandom: o.commonRandom}, o.workers)
	<-done
	if err = errors.Join(selectErr, err); err != nil {
		return err
	}
	if *checkErr != nil {
		return fmt.Errorf("failed to validate the simulator: %w", *checkErr)
	}
	if o.verbose {
		fmt.Fprintf(stderr, "simulations over %d seeds: %v\n", o.seeds, time.Since(started).Round(time.Millisecond))
		writeRetuneTimes(stderr, reps)
	}
	if *checks != nil {
		fmt.Fprintf(stdout, "## Validation against closed forms\n\n`%s`\n\n%s\n", validateCommand(o), sim.ValidationMarkdown(*checks))
	}
	if o.svg != "" {
		if err := os.WriteFile(o.svg, []byte(plotSVG(reps)), 0o644); err != nil { //nolint:gosec // G306: a plot the user asked for, as readable as any file the shell writes
			return fmt.Errorf("failed to write the plot: %w", err)
		}
	}
	fmt.Fprint(stdout, summaryMarkdown(reps))
	for _, rep := range reps {
		writeSeedSection(stdout, rep, presetCommand(rep.Preset, o))
	}
	return nil
}

// writeSeedSection prints one preset's comparison over seeds.
func writeSeedSection(w io.Writer, rep sim.SeedReport, command string) {
	p := rep.Preset
	fmt.Fprintf(w, "## %s — %s\n\n`%s`\n\n%s; seeds %d–%d. Each cell is the median over the seeds and, in brackets, the 10th–90th percentile range; times are time-to-merge in minutes (arrival → merged), ×O the ratio to the Oracle on the same seed, ∞ a seed on which the policy fell behind.\n\n%s\n",
		p.Name, p.Description, command, p.Workload.Describe(), rep.Seeds[0], rep.Seeds[len(rep.Seeds)-1], rep.Markdown())
	unstable := false
	for _, row := range rep.Rows {
		if row.Saturated != nil {
			unstable = true
		}
	}
	if unstable {
		fmt.Fprintf(w, "\\* Fell behind on some seed (the queue outgrew %d PRs and the simulation stopped): its CI use on those seeds, and its *saturated merges/h* on every seed, are measured in a separate saturated run, %d of the same PRs waiting at time 0, between the decisions of the first %.0f %% and %.0f %% of them (the steady state, not the ramp-up).\n\n",
			maxQueue(p), p.SaturatedBacklog(), 100*sim.SaturatedFrom, 100*sim.SaturatedTo)
	}
	fmt.Fprintf(w, "%s\n", rep.SteadyState())
	best, ok := rep.BestOurs()
	if !ok {
		return
	}
	fmt.Fprintf(w, "Best setting of ours (by medians over the seeds): **%s**.\n\n", best.Policy)
	writeTargets(w, rep.Targets())
	if v, ok := rep.AutoVerdict(); ok {
		fmt.Fprint(w, v)
	}
	for _, row := range rep.Rows {
		if row.Violations > 0 {
			fmt.Fprintf(w, "- %s: %d invariant violations, e.g. %s\n", row.Policy, row.Violations, row.FirstViolation)
		}
	}
	fmt.Fprintln(w)
}

func maxQueue(p sim.Preset) int {
	if p.MaxQueue > 0 {
		return p.MaxQueue
	}
	return p.Workload.QueueCap()
}

// summaryMarkdown is one table over every preset: our best setting (by
// medians) against the best baseline that keeps up.
func summaryMarkdown(reps []sim.SeedReport) string {
	s := "## Summary: medians over seeds\n\n" +
		"| preset | our best setting | kept up | p50 ×O | p95 (min) | p95 ×O | CI runs/merge | GitHub writes/merge | peak GitHub writes/h | baselines beaten | ours(auto): p95 (min), CI runs/merge |\n" +
		"|---|---|--:|--:|--:|--:|--:|--:|--:|---|---|\n"
	for _, rep := range reps {
		best, ok := rep.BestOurs()
		if !ok {
			continue
		}
		var beaten []string
		for _, t := range rep.Targets() {
			if t.Reached && len(t.Name) > 6 && t.Name[:6] == "beats " {
				beaten = append(beaten, t.Name[6:])
			}
		}
		list := "none"
		if len(beaten) > 0 {
			list = fmt.Sprint(beaten)
			list = list[1 : len(list)-1]
		}
		auto := "–"
		for _, row := range rep.Rows {
			if row.Auto {
				auto = fmt.Sprintf("%s, %s", sim.FormatSpreadMinutes(row.P95), sim.FormatSpread(row.RunsPerMerge, "%.2f"))
			}
		}
		s += fmt.Sprintf("| %s | `%s` | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s |\n", rep.Preset.Name, best.Policy,
			best.Stable, len(best.Results), sim.FormatSpread(best.P50x, "%.2f"), sim.FormatSpreadMinutes(best.P95),
			sim.FormatSpread(best.P95x, "%.2f"), sim.FormatSpread(best.RunsPerMerge, "%.2f"),
			sim.FormatSpread(best.WritesPerMerge, "%.2f"), sim.FormatSpread(best.PeakHourlyWrites, "%.0f"), list, auto)
	}
	return s + "\n"
}

// writeRetuneTimes prints, for each ours(auto) row, its changes of
// settings per seed and the longest a retuning took (wall time, so not in
// the deterministic report).
func writeRetuneTimes(w io.Writer, reps []sim.SeedReport) {
	for _, rep := range reps {
		for _, row := range rep.Rows {
			if !row.Auto {
				continue
			}
			var slowest time.Duration
			changes := 0
			for _, r := range row.Results {
				slowest = max(slowest, r.SlowestRetune)
				changes += len(r.Retunes)
			}
			fmt.Fprintf(w, "%s %s: %d changes of settings over %d seeds, slowest retune %v\n",
				rep.Preset.Name, row.Policy, changes, len(row.Results), slowest.Round(time.Millisecond))
		}
	}
}
