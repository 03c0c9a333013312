package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestFloor: -floor prints the preset's three in-order floors over the
// seeds asked for, and refuses the flags of a simulation report.
func TestFloor(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := run([]string{"-preset", "monorepo", "-floor", "-seeds", "2", "-prs", "300"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"## In-order floors of monorepo: 300 PRs per seed, seeds 1–2",
		"| culprits known on arrival |", "| culprits known after a run alone |", "| culprits decided as SPEC §5.3 |", " of 2 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, args := range [][]string{{"-floor", "-all"}, {"-floor", "-trace"}, {"-floor", "-validate"}, {"-floor", "-preset", "nope"}} {
		if code := run(args, &bytes.Buffer{}, &bytes.Buffer{}); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestMedianOf takes the middle value, or the mean of the middle two.
func TestMedianOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := medianOf(c.in); got != c.want {
			t.Errorf("medianOf(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
