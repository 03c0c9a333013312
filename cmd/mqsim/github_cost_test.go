package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// tableCells returns the cells of the first Markdown table row of out
// whose first cell is (or, bold, names) policy, by the header's column
// names; nil if there is none.
func tableCells(t *testing.T, out, policy string) map[string]string {
	t.Helper()
	var header []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "| ") {
			header = nil
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if header == nil {
			header = cells
			continue
		}
		if strings.Trim(cells[0], "*`") != policy || len(cells) != len(header) {
			continue
		}
		row := map[string]string{}
		for i, h := range header {
			row[h] = cells[i]
		}
		return row
	}
	return nil
}

// number parses a cell's median ("6.12 (5.00–7.00)*" → 6.12).
func number(t *testing.T, cell string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(strings.TrimRight(strings.Fields(cell + " ")[0], "*"), 64)
	if err != nil {
		t.Fatalf("cell %q is not a number: %v", cell, err)
	}
	return f
}

// TestReportsGitHubCost: both reports print our engine's GitHub writes
// and calls per merged PR and its busiest hour of writes next to the CI
// runs per merge, and "–" for the baselines, which have no GitHub.
func TestReportsGitHubCost(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-preset", "small", "-prs", "40", "-policy", "oracle,github,ours", "-ours-concurrency", "2"},
		{"-preset", "small", "-prs", "40", "-seeds", "2", "-policy", "oracle,github,ours", "-ours-concurrency", "2"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		for _, base := range []string{"oracle", "github(k=4)"} {
			row := tableCells(t, out.String(), base)
			if row == nil {
				t.Fatalf("%v: no row %s in\n%s", args, base, out.String())
			}
			for _, col := range []string{"GitHub writes/merge", "GitHub calls/merge", "peak GitHub writes/h"} {
				if row[col] != "–" {
					t.Errorf("%v: %s's %s is %q, want –", args, base, col, row[col])
				}
			}
		}
		row := tableCells(t, out.String(), "ours(k=2)")
		if row == nil {
			t.Fatalf("%v: no row of ours in\n%s", args, out.String())
		}
		writes, calls := number(t, row["GitHub writes/merge"]), number(t, row["GitHub calls/merge"])
		// Each merged PR costs its merge and its check run's creation and
		// completion at least; reads come on top.
		if writes < 3 || calls <= writes || number(t, row["peak GitHub writes/h"]) < writes {
			t.Errorf("%v: ours %q writes/merge, %q calls/merge, %q peak writes/h", args, row["GitHub writes/merge"],
				row["GitHub calls/merge"], row["peak GitHub writes/h"])
		}
		if row["CI runs/merge"] == "" {
			t.Errorf("%v: no CI runs/merge beside them: %v", args, row)
		}
	}
}

// TestSummaryShowsGitHubWrites: the summary over seeds has the best
// setting's writes per merged PR and busiest hour.
func TestSummaryShowsGitHubWrites(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	args := []string{"-preset", "small", "-prs", "40", "-seeds", "2", "-policy", "oracle,ours", "-ours-concurrency", "2"}
	if code := run(args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	row := tableCells(t, out.String(), "small")
	if row == nil {
		t.Fatalf("no summary row for small in\n%s", out.String())
	}
	if number(t, row["GitHub writes/merge"]) < 3 || number(t, row["peak GitHub writes/h"]) <= 0 {
		t.Errorf("summary row %v", row)
	}
}
