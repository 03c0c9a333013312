package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue/sim"
)

// execute runs what the options ask for and writes Markdown to stdout.
// With -all the validation runs beside the presets' simulations.
func execute(o options, stdout, stderr io.Writer) error {
	opts := sim.RunOptions{MaxDrain: o.maxDrain, MaxQueue: o.maxQueue, Trace: o.trace, Resubmit: true, CommonRandom: o.commonRandom}
	var (
		checks   []sim.Check
		checkErr error
		done     = make(chan struct{})
	)
	if o.validate || o.all {
		go func() {
			defer close(done)
			started := time.Now()
			checks, checkErr = sim.Validate(o.seed, o.scale)
			if o.verbose {
				fmt.Fprintf(stderr, "validation: %v\n", time.Since(started).Round(time.Millisecond))
			}
		}()
	} else {
		close(done)
	}
	if !o.validate && o.seeds > 1 {
		return executeSeeds(o, stdout, stderr, done, &checks, &checkErr)
	}
	var reps []sim.Report
	if !o.validate {
		presets, err := choosePresets(o)
		if err != nil {
			return err
		}
		var selectErr error
		reps, err = sim.RunPresets(presets, func(p sim.Preset) []sim.PolicySpec {
			pols, err := selectPolicies(p, o)
			selectErr = errors.Join(selectErr, err)
			return pols
		}, o.seed, opts, o.workers)
		if err = errors.Join(selectErr, err); err != nil {
			<-done
			return err
		}
	}
	<-done
	if checkErr != nil {
		return fmt.Errorf("failed to validate the simulator: %w", checkErr)
	}
	if checks != nil {
		fmt.Fprintf(stdout, "## Validation against closed forms\n\n`%s`\n\n%s\n", validateCommand(o), sim.ValidationMarkdown(checks))
	}
	for _, rep := range reps {
		if o.verbose {
			for _, r := range rep.Results {
				fmt.Fprintf(stderr, "%s %s: %v%s\n", rep.Preset.Name, r.Policy, r.Wall.Round(time.Millisecond), githubByCall(r))
			}
		}
		writeSection(stdout, rep, presetCommand(rep.Preset, o))
		for _, r := range rep.Results {
			if r.Trace != nil {
				fmt.Fprintf(stdout, "### Trace of %s\n\n```\n%s```\n\n", r.Policy, r.Trace.Text())
			}
			if o.trace && len(r.Retunes) > 0 {
				fmt.Fprintf(stdout, "### Settings chosen by %s\n\n```\n%s\n```\n\n", r.Policy, strings.Join(r.Retunes, "\n"))
			}
		}
	}
	return nil
}

// githubByCall describes where a run of ours spent its GitHub requests, per
// merged PR and port method, most first ("" for a baseline).
func githubByCall(r sim.Result) string {
	if r.GitHubByCall == nil || r.Merged == 0 {
		return ""
	}
	names := slices.Collect(maps.Keys(r.GitHubByCall))
	slices.SortFunc(names, func(a, b string) int {
		if d := r.GitHubByCall[b].Calls() - r.GitHubByCall[a].Calls(); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(names))
	for _, n := range names {
		c := r.GitHubByCall[n]
		parts = append(parts, fmt.Sprintf("%s %.2fw %.2fr", n, float64(c.Writes)/float64(r.Merged), float64(c.Reads)/float64(r.Merged)))
	}
	return "; GitHub requests per merged PR (writes, reads): " + strings.Join(parts, ", ")
}

// choosePresets returns the presets to run, with -prs applied.
func choosePresets(o options) ([]sim.Preset, error) {
	var presets []sim.Preset
	if o.all {
		presets = sim.Presets()
	} else {
		p, err := sim.PresetByName(o.preset)
		if err != nil {
			return nil, err
		}
		presets = append(presets, p)
	}
	for i := range presets {
		switch {
		case o.prs > 0:
			presets[i].Workload.PRs = o.prs
		case o.seeds > 1:
			presets[i].Workload.PRs = presets[i].MultiSeedPRsOf()
		}
	}
	return presets, nil
}

// writeSection prints one preset's table, its best setting of ours and the
// targets of issue #3.
func writeSection(w io.Writer, rep sim.Report, command string) {
	p := rep.Preset
	fmt.Fprintf(w, "## %s — %s\n\n`%s`\n\n%s. Times are time-to-merge in minutes (arrival → merged); ×O is the ratio to the Oracle.\n\n%s\n",
		p.Name, p.Description, command, p.Workload.Describe(), rep.Markdown())
	best, ok := rep.BestOurs()
	if !ok {
		return
	}
	fmt.Fprintf(w, "Best setting of ours: **%s**.\n\n", best.Policy)
	writeTargets(w, rep.Targets())
	for _, r := range rep.Results {
		if len(r.Violations) > 0 {
			fmt.Fprintf(w, "- %s: %d invariant violations, e.g. %s\n", r.Policy, len(r.Violations), r.Violations[0])
		}
	}
	fmt.Fprintln(w)
}

// presetCommand is the command line reproducing one preset's table.
func presetCommand(p sim.Preset, o options) string {
	args := []string{"go run ./cmd/mqsim", "-preset " + p.Name, fmt.Sprintf("-seed %d", o.seed)}
	if o.seeds > 1 {
		args = append(args, fmt.Sprintf("-seeds %d", o.seeds))
	}
	if o.prs > 0 {
		args = append(args, fmt.Sprintf("-prs %d", o.prs))
	}
	if o.policy != "all" {
		args = append(args, "-policy "+o.policy)
	}
	if o.maxDrain > 0 {
		args = append(args, "-max-drain "+o.maxDrain.String())
	}
	if o.oursSet {
		args = append(args, oursFlags(o.ours)...)
	}
	if o.noAuto {
		args = append(args, "-no-auto")
	}
	return strings.Join(args, " ")
}

func validateCommand(o options) string {
	cmd := fmt.Sprintf("go run ./cmd/mqsim -validate -seed %d", o.seed)
	if o.scale != 1 {
		cmd += fmt.Sprintf(" -validate-scale %g", o.scale)
	}
	return cmd
}

// oursFlags renders the -ours-* flags for a setting.
func oursFlags(c sim.OursConfig) []string {
	var out []string
	if c.Mode != "" {
		out = append(out, "-ours-mode "+string(c.Mode))
	}
	if c.Concurrency > 0 {
		out = append(out, fmt.Sprintf("-ours-concurrency %d", c.Concurrency))
	}
	if c.BatchingMinSize > 0 {
		out = append(out, fmt.Sprintf("-ours-batch %d", c.BatchingMinSize))
	}
	if c.BatchingMaxSize > 0 {
		out = append(out, fmt.Sprintf("-ours-batch-max %d", c.BatchingMaxSize))
	}
	if c.BatchingMaxWaitMinutes > 0 {
		out = append(out, fmt.Sprintf("-ours-batch-wait %d", c.BatchingMaxWaitMinutes))
	}
	if c.BisectionConcurrency > 0 {
		out = append(out, fmt.Sprintf("-ours-bisection %d", c.BisectionConcurrency))
	}
	if c.PendingFailureDepth > 0 {
		out = append(out, fmt.Sprintf("-ours-depth %d", c.PendingFailureDepth))
	}
	if c.CanOptimisticallyMerge {
		out = append(out, "-ours-optimistic")
	}
	if c.SkipRedundantTests {
		out = append(out, "-ours-skip-redundant")
	}
	if c.BisectionParts > 0 {
		out = append(out, fmt.Sprintf("-ours-bisection-parts %d", c.BisectionParts))
	}
	return out
}

// writeTargets prints one line per target of issue #3: reached or not, and why.
func writeTargets(w io.Writer, targets []sim.Target) {
	for _, t := range targets {
		mark := "no"
		if t.Reached {
			mark = "yes"
		}
		fmt.Fprintf(w, "- %s: **%s** (%s)\n", t.Name, mark, t.Detail)
	}
}
