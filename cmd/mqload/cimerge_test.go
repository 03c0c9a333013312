package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue/postgres/pgtest"
)

// ciMergeLine is a row of the ci-to-merge table: store, p50, p99 (one
// round: no spread).
var ciMergeLine = regexp.MustCompile(`(?m)^\| (SQLite|PostgreSQL)[^|]* \| ([0-9.]+) ms \| ([0-9.]+) ms \|$`)

// runCIToMerge runs the ci-to-merge figure alone and returns its rows by
// store ("SQLite", "PostgreSQL"): p50 and p99 in milliseconds.
func runCIToMerge(t *testing.T, extra ...string) map[string][2]float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	args := append([]string{"-rounds", "1", "-merge-prs", "3", "-concurrency", "2", "-reconcile-interval", "500ms", "-only", "ci-to-merge"}, extra...)
	if code := run(ctx, args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}
	got := out.String()
	if !strings.Contains(got, "Time from a CI result to the merge call: 3 PRs per round") {
		t.Errorf("output lacks the figure's description:\n%s", got)
	}
	rows := map[string][2]float64{}
	for _, m := range ciMergeLine.FindAllStringSubmatch(got, -1) {
		p50, _ := strconv.ParseFloat(m[2], 64)
		p99, _ := strconv.ParseFloat(m[3], 64)
		rows[m[1]] = [2]float64{p50, p99}
	}
	for store, r := range rows {
		if r[0] <= 0 || r[1] < r[0] {
			t.Errorf("%s: p50 %.1f ms, p99 %.1f ms: want 0 < p50 <= p99:\n%s", store, r[0], r[1], got)
		}
	}
	return rows
}

// The time from a CI result to the merge call is measured on SQLite: the
// figure is printed and positive (how fast is not asserted).
func TestCIToMergeOnSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service")
	}
	rows := runCIToMerge(t)
	if _, ok := rows["SQLite"]; !ok || len(rows) != 1 {
		t.Errorf("want one SQLite row, got %v", rows)
	}
}

// With -postgres the figure is measured on both stores in the same run.
func TestCIToMergeOnBothStores(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service twice")
	}
	rows := runCIToMerge(t, "-postgres", pgtest.URL(t))
	for _, store := range []string{"SQLite", "PostgreSQL"} {
		if _, ok := rows[store]; !ok {
			t.Errorf("no %s row: %v", store, rows)
		}
	}
}
