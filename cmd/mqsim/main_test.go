package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue/sim"
)

func TestRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"baselines of a preset", []string{"-preset", "small", "-prs", "80", "-policy", "oracle,serial,github"}, 0,
			[]string{"## small — small team", "`go run ./cmd/mqsim -preset small -seed 1 -prs 80 -policy oracle,serial,github`",
				"| oracle |", "| serial |", "| github(k=4) |"}},
		{"one setting of ours from flags", []string{"-preset", "small", "-prs", "40", "-policy", "ours",
			"-ours-concurrency", "2", "-ours-depth", "1", "-ours-optimistic"}, 0,
			[]string{"-ours-concurrency 2 -ours-depth 1 -ours-optimistic`", "| **ours(k=2,d=1,opt)** |", "Best setting of ours"}},
		{"validation", []string{"-validate", "-validate-scale", "0.01"}, 0,
			[]string{"## Validation against closed forms", "Pollaczek–Khinchine", "recursive halving", "| exact | pass |"}},
		{"unknown preset", []string{"-preset", "nope"}, 2, nil},
		{"unknown policy", []string{"-policy", "serial,magic"}, 2, nil},
		{"bad mode", []string{"-ours-mode", "diagonal"}, 2, nil},
		{"stray argument", []string{"small"}, 2, nil},
		{"trace of ours", []string{"-preset", "small", "-prs", "40", "-policy", "ours", "-ours-concurrency", "2", "-trace"}, 0,
			[]string{"### Trace of ours(k=2)", "restarts by reason:", "minute | PRs queued | runs started | restarts | merged"}},
		{"trace needs one seed", []string{"-preset", "small", "-seeds", "2", "-trace"}, 2, nil},
		{"negative max-queue", []string{"-max-queue", "-1"}, 2, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			if code := run(tc.args, &out, &errOut); code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errOut.String())
			}
			for _, want := range tc.contains {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}

func TestParallelModeFollowsThePreset(t *testing.T) {
	t.Parallel()
	o, err := parse([]string{"-preset", "uber", "-ours-concurrency", "10"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	p := mustPreset(t, "uber")
	pols, err := selectPolicies(p, o)
	if err != nil {
		t.Fatal(err)
	}
	last := pols[len(pols)-1]
	if last.Ours.Mode != "parallel" || last.Ours.Concurrency != 10 || len(pols) != 6 {
		t.Errorf("policies %+v: want the five baselines and ours in parallel mode with k=10", pols)
	}
}

func mustPreset(t *testing.T, name string) sim.Preset {
	t.Helper()
	p, err := sim.PresetByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNoAutoLeavesOutOursAuto(t *testing.T) {
	t.Parallel()
	p := mustPreset(t, "shopify")
	for _, c := range []struct {
		args []string
		auto bool
	}{{nil, true}, {[]string{"-no-auto"}, false}} {
		o, err := parse(c.args, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		pols, err := selectPolicies(p, o)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, pol := range pols {
			found = found || pol.Ours.AutoTune
		}
		if found != c.auto {
			t.Errorf("%v: ours(auto) selected %v, want %v", c.args, found, c.auto)
		}
	}
}

// TestOursAutoRunsOnlyTheSelfTuningQueue: -ours-auto N replaces our rows
// with ours(auto) bounded by N runs at once (the baselines asked for stay);
// a negative bound is refused.
func TestOursAutoRunsOnlyTheSelfTuningQueue(t *testing.T) {
	t.Parallel()
	o, err := parse([]string{"-policy", "github,ours", "-ours-auto", "24"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	pols, err := selectPolicies(mustPreset(t, "shopify"), o)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, pol := range pols {
		labels = append(labels, pol.Label())
	}
	if len(pols) != 2 || pols[0].Kind != sim.KindGitHub || !pols[1].Ours.AutoTune || pols[1].Ours.AutoMaxRuns != 24 || pols[1].Ours.Concurrency != 0 {
		t.Errorf("-policy github,ours -ours-auto 24 selected %v", labels)
	}
	if _, err := parse([]string{"-ours-auto", "-1"}, &bytes.Buffer{}); err == nil {
		t.Errorf("-ours-auto -1 accepted")
	}
}

// TestCommonRandomIsTheDefault: the report draws with common random
// numbers unless -common-random=false, which draws CI in the order runs
// start (the same PRs, other CI durations: other times to merge).
func TestCommonRandomIsTheDefault(t *testing.T) {
	t.Parallel()
	table := func(args ...string) string {
		var out, errOut bytes.Buffer
		args = append([]string{"-preset", "small", "-prs", "120", "-policy", "github"}, args...)
		if code := run(args, &out, &errOut); code != 0 {
			t.Fatalf("mqsim %v: exit %d; stderr: %s", args, code, errOut.String())
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "| github(k=4) |") {
				return line
			}
		}
		t.Fatalf("mqsim %v printed no github(k=4) row:\n%s", args, out.String())
		return ""
	}
	def, common, ordered := table(), table("-common-random"), table("-common-random=false")
	if def != common {
		t.Errorf("default row\n%s\ndiffers from -common-random's\n%s", def, common)
	}
	if def == ordered {
		t.Errorf("-common-random=false printed the default's row %s: the flag changed nothing", def)
	}
}
