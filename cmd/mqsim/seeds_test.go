package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeedsReportMediansAndPlot: -seeds runs every seed, prints medians
// with their spread and the command that reproduces them, and -svg writes
// the plot, the same bytes on a second run.
func TestSeedsReportMediansAndPlot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	render := func(name string) (string, string) {
		svg := filepath.Join(dir, name)
		var out, errOut bytes.Buffer
		args := []string{"-preset", "small", "-prs", "60", "-seeds", "3", "-policy", "oracle,serial,github,ours",
			"-ours-concurrency", "2", "-svg", svg}
		if code := run(args, &out, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		b, err := os.ReadFile(svg)
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), string(b)
	}
	out, svg := render("a.svg")
	for _, want := range []string{"## Summary: medians over seeds", "`go run ./cmd/mqsim -preset small -seed 1 -seeds 3 -prs 60",
		"seeds 1–3", "| oracle | 3/3 |", "| **ours(k=2)** | 3/3 |", "Best setting of ours (by medians over the seeds)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasPrefix(svg, "<svg ") || !strings.Contains(svg, ">small</text>") || !strings.Contains(svg, "ours(k=2): p95") {
		t.Errorf("plot lacks the panel or the points:\n%.600s", svg)
	}
	out2, svg2 := render("b.svg")
	if out2 != out || svg2 != svg {
		t.Error("two runs with the same seeds differ")
	}
	var errOut bytes.Buffer
	if code := run([]string{"-preset", "small", "-svg", filepath.Join(dir, "c.svg")}, &bytes.Buffer{}, &errOut); code != 2 {
		t.Errorf("-svg with one seed: exit %d, want 2", code)
	}
	if code := run([]string{"-seeds", "-1"}, &bytes.Buffer{}, &errOut); code != 2 {
		t.Errorf("-seeds -1: exit %d, want 2", code)
	}
}

// TestSeedsReportOursAuto: a single-mode preset's report has ours(auto)
// beside the fixed settings, in the summary and against issue #20's
// acceptance.
func TestSeedsReportOursAuto(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := run([]string{"-preset", "small", "-prs", "40", "-seeds", "2", "-policy", "oracle,ours"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"| ours(auto): p95 (min), CI runs/merge |", "| ours(auto,≤8 runs) | 2/2 |",
		"- ours(auto,≤8 runs) within 10 % of the best fixed p95 at no more runs per merge: **"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
