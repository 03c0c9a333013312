package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// A tiny run measures and prints every figure, each with its ratio to the
// empty handler, and the machine. It asserts what is printed, never how
// fast anything was.
func TestTinyRunPrintsEveryFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service twice")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "mem.out")
	args := []string{"-rounds", "1", "-duration", "200ms", "-clients", "2", "-senders", "2", "-entries", "3", "-prs", "2", "-merge-prs", "2",
		"-reconcile-interval", "500ms", "-cpuprofile", cpu, "-memprofile", mem}
	if code := run(ctx, args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}
	for _, p := range []string{cpu, mem} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("profile %s not written: %v", p, err)
		}
	}
	got := out.String()
	rows := []string{
		"| empty Go handler `{}`, 2 clients |",
		"| empty Go handler `{}`, 1 client |",
		"| getSubmittedPullRequest, 2 clients |",
		"| getSubmittedPullRequest, 1 client |",
		"| getQueue of 3 entries, 2 clients |",
		"| /healthz, 2 clients |",
		"| signed webhook deliveries (status), 2 senders |",
		"| content-creating calls (every call but GET, installation tokens excluded) |",
		"| GitHub API calls in all |",
		"| SQLite (a file in a temporary directory) |", // the time from a CI result to the merge call
		"`go run ./cmd/mqload -rounds 1 -duration 200ms",
		"Machine: ",
		"GOMAXPROCS",
		"go1.",
	}
	for _, want := range rows {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// Every load figure answered, and has a rate, a p50, a p99 and a ratio.
	figure := regexp.MustCompile(`(?m)^\| (getSubmittedPullRequest|getQueue|/healthz|signed webhook)[^|]* \| [0-9,]+ \| [0-9.]+ ms \| [0-9.]+ ms \| [0-9]+ % \| 0 \|$`)
	if n := len(figure.FindAllString(got, -1)); n != 5 {
		t.Errorf("%d complete figure rows without failures, want 5:\n%s", n, got)
	}
	// Both test branch builders side by side (rest, then git), each
	// without batching, with batches, and with batches landing by
	// fast-forward.
	writes := regexp.MustCompile(`(?m)^\| content-creating calls[^|]*\|` + strings.Repeat(` ([0-9.]+) \|`, 6) + `$`)
	if m := writes.FindStringSubmatch(got); m == nil || slices.Contains(m[1:], "0.00") {
		t.Errorf("no writes per merged PR counted, for both builders without batching, with batches and landing by fast-forward:\n%s", got)
	}
	gitRequests := regexp.MustCompile(`(?m)^\| git requests[^|]*\| 0.00 \| 0.00 \| 0.00 \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \|$`)
	if m := gitRequests.FindStringSubmatch(got); m == nil || slices.Contains(m[1:], "0.00") {
		t.Errorf("want git requests for the git builder only:\n%s", got)
	}
}

func TestFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"help", []string{"--help"}, 0, "getSubmittedPullRequest (many clients and one)"},
		{"unknown figure", []string{"-only", "getQueue,nope"}, 2, `unknown figure "nope"`},
		{"unknown builder", []string{"-test-branches", "rest,svn"}, 2, `-test-branches: want a list of "rest" and "git"`},
		{"no rounds", []string{"-rounds", "0"}, 2, "-rounds must be at least 1"},
		{"stray argument", []string{"now"}, 2, "unexpected arguments"},
		{"unknown flag", []string{"-fast"}, 2, "flag provided but not defined"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			if code := run(context.Background(), tc.args, &out, &errOut); code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errOut.String())
			}
			if !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, errOut.String())
			}
			if out.Len() != 0 {
				t.Errorf("printed a report: %s", out.String())
			}
		})
	}
}

func TestPercentileAndSpread(t *testing.T) {
	t.Parallel()
	var lat []time.Duration
	for i := 1; i <= 100; i++ {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	if p := percentile(lat, 50); p != 50*time.Millisecond {
		t.Errorf("p50 = %s", p)
	}
	if p := percentile(lat, 99); p != 99*time.Millisecond {
		t.Errorf("p99 = %s", p)
	}
	if p := percentile(nil, 99); p != 0 {
		t.Errorf("p99 of nothing = %s", p)
	}
	s := series{3, 1, 2}
	if got := spreadOf(s, "%s", 0); got != "2 (1–3)" {
		t.Errorf("spread = %q", got)
	}
	if got := spreadOf(series{1234.4, 1000, 2000000}, "%s", 0); got != "1,234 (1,000–2,000,000)" {
		t.Errorf("spread = %q", got)
	}
	if got := spreadOf(series{1.5, 2.5}, "%.2f ms", 1); got != "2.00 ms (1.50–2.50 ms)" {
		t.Errorf("spread = %q", got)
	}
}
