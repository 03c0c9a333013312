package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue/postgres/pgtest"
)

// The idle figure is measured for each count of queues on each store: a
// row per store and count, with the repositories the queues are on (one
// each up to -idle-repos), the process's CPU and the GitHub calls (and on
// PostgreSQL the database's transactions); how much is not asserted.
func TestIdleQueuesFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service four times")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	args := []string{"-rounds", "1", "-only", "idle", "-idle-queues", "1,3", "-idle-repos", "2", "-idle-window", "1s", "-reconcile-interval", "500ms",
		"-postgres", pgtest.URL(t)}
	if code := run(ctx, args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}
	got := out.String()
	if !strings.Contains(got, "Idle cost: a service with N idle queues") {
		t.Errorf("output lacks the figure's description:\n%s", got)
	}
	sqlite := regexp.MustCompile(`(?m)^\| SQLite[^|]* \| (1 \| 1|3 \| 2) \| [0-9.]+ \| — \| — \| [0-9.]+ % \| [0-9.]+ \|$`)
	postgres := regexp.MustCompile(`(?m)^\| PostgreSQL[^|]*, 2 replicas \| (1 \| 1|3 \| 2) \| [0-9.]+ \| ([0-9.]+) \| [0-9,]+ \| [0-9.]+ % \| [0-9.]+ \|$`)
	if n := len(sqlite.FindAllString(got, -1)); n != 2 {
		t.Errorf("%d SQLite rows, want 2 (1 and 3 queues):\n%s", n, got)
	}
	rows := postgres.FindAllStringSubmatch(got, -1)
	if len(rows) != 2 {
		t.Fatalf("%d PostgreSQL rows, want 2 (1 and 3 queues):\n%s", len(rows), got)
	}
	for _, r := range rows {
		if r[2] == "0.0" {
			t.Errorf("no database transaction counted on PostgreSQL with %s queues (the reading itself is one):\n%s", r[1], got)
		}
	}
}

func TestIdleQueuesFlag(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"0", "x", "100,", "-5", "2000000"} {
		if _, err := parseIdleQueues(bad); err == nil {
			t.Errorf("parseIdleQueues(%q) accepted", bad)
		}
	}
	got, err := parseIdleQueues(" 100, 10000")
	if err != nil || len(got) != 2 || got[0] != 100 || got[1] != 10000 {
		t.Errorf("parseIdleQueues = %v, %v", got, err)
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-idle-queues", "10,none"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "-idle-queues") {
		t.Errorf("exit %d, stderr %q; want 2 and the flag named", code, errOut.String())
	}
	for _, bad := range []string{"0", "-1", "100001"} {
		out.Reset()
		errOut.Reset()
		if code := run(context.Background(), []string{"-idle-queues", "10", "-idle-repos", bad}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "-idle-repos") {
			t.Errorf("-idle-repos %s: exit %d, stderr %q; want 2 and the flag named", bad, code, errOut.String())
		}
	}
}

// Idle queues are spread one per repository up to -idle-repos: with 1,
// every queue is a branch of the load repository.
func TestIdleKeysSpreadOverRepositories(t *testing.T) {
	t.Parallel()
	if k := idleKey(7, 1); k.Repo.Name != loadRepo || k.Branch != "idle-00007" {
		t.Errorf("idleKey(7, 1) = %v, want branch idle-00007 of the load repository", k)
	}
	seen := map[string]int{}
	keys := map[string]bool{}
	n, repos := 25, idleRepoCount(25, 10)
	for i := range n {
		k := idleKey(i, repos)
		seen[k.Repo.Name]++
		keys[k.String()] = true
	}
	if len(seen) != 10 || len(keys) != n || seen[loadRepo] != 0 {
		t.Errorf("25 queues over up to 10 repositories: repositories %v, %d distinct keys", seen, len(keys))
	}
	if got := idleRepoCount(3, 1000); got != 3 {
		t.Errorf("idleRepoCount(3, 1000) = %d, want one repository per queue", got)
	}
}
