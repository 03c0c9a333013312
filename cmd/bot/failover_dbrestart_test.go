//go:build unix

package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue/postgres/pgtest"
)

// pgCluster is a PostgreSQL cluster of one test's own, started with
// .ci/postgres (a restart of the shared server would break the other
// packages' tests).
type pgCluster struct {
	t   *testing.T
	dir string
	url string
}

// ownCluster starts a cluster for t. Like the other PostgreSQL tests it
// runs only where a server is offered (MQ_TEST_POSTGRES_URL, as .ci/run
// sets): then a cluster that cannot start is a failure.
func ownCluster(t *testing.T) *pgCluster {
	t.Helper()
	if os.Getenv(pgtest.EnvURL) == "" {
		if os.Getenv(pgtest.EnvRequire) == "1" {
			t.Fatalf("%s is not set but %s=1: the PostgreSQL tests must run", pgtest.EnvURL, pgtest.EnvRequire)
		}
		t.Skipf("PostgreSQL tests skipped: set %s (and have Debian's postgresql) to run them", pgtest.EnvURL)
	}
	dir, err := os.MkdirTemp("", "mq-pg-restart-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // as root the cluster runs as the postgres user
		t.Fatal(err)
	}
	c := &pgCluster{t: t, dir: filepath.Join(dir, "pg")}
	t.Cleanup(func() {
		_, _ = c.run("stop")
		_ = os.RemoveAll(dir)
	})
	url, err := c.run("start")
	if err != nil {
		t.Fatalf("failed to start a PostgreSQL cluster of the test's own: %v", err)
	}
	c.url = url
	return c
}

// run runs .ci/postgres cmd on the cluster and returns what it printed.
func (c *pgCluster) run(cmd string) (string, error) {
	out, err := exec.Command("../../.ci/postgres", cmd, c.dir).Output()
	if err != nil {
		var stderr string
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = string(ee.Stderr)
		}
		return "", fmt.Errorf(".ci/postgres %s: %w: %s", cmd, err, stderr)
	}
	return strings.TrimSpace(string(out)), nil
}

// Two replicas on one PostgreSQL; the database is stopped under load (PRs
// testing and merging, webhooks arriving), long enough that every replica
// reports it unready and its leases lapse, then started again on the same
// port: the replicas reconnect by themselves (no restart), nothing
// acknowledged is lost, and every PR merges exactly once, in order.
func TestFailoverRestartTheDatabase(t *testing.T) {
	t.Parallel()
	db := ownCluster(t)
	s := newReplicaSetOn(t, 2, db.url)
	h := s.crashHarness
	h.createQueue(map[string]any{"concurrency": 2, "stateLabelsEnabled": true})
	o := &crashOutcome{How: map[int]submitMethod{}, Initial: h.mainLength()}
	var prs []int
	for i := range 6 {
		pr := h.openPR(fmt.Sprintf("change-%02d", i), map[string]string{fmt.Sprintf("change-%02d.txt", i): "change\n"})
		prs = append(prs, pr)
		o.How[pr] = submitMethod(i % 3)
		o.Merged = append(o.Merged, pr)
	}
	h.fake.SetCIHold(true)
	for _, pr := range prs {
		if err := h.submit(pr, o.How[pr]); err != nil {
			t.Fatal(err)
		}
	}
	stopCI := h.paceCI(rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3)), 200*time.Millisecond, 800*time.Millisecond)
	defer stopCI()
	h.waitFor("a first merge", crashWait, func() bool {
		m, err := h.mergeLog()
		return err == nil && len(m) > 0
	}, nil)
	held, err := s.leaseOf()
	if err != nil || held.Holder == "" {
		t.Fatalf("no lease on the queue before the restart: %+v, %v", held, err)
	}
	if _, err := db.run("stop"); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	h.waitFor("every replica to report the database unavailable", crashWait, func() bool {
		for _, r := range s.live() {
			if s.readyAt(r.addr) {
				return false
			}
		}
		return true
	}, nil)
	// Down past the lease's expiry: no replica can prove it holds the
	// queue while CI goes on.
	h.waitFor("the queue's lease to lapse", crashWait, func() bool { return time.Now().After(held.Expires) }, nil)
	if _, err := db.run("resume"); err != nil {
		t.Fatal(err)
	}
	t.Logf("database down for %v", time.Since(stopped).Round(time.Millisecond))
	h.waitFor("every replica to reconnect", crashWait, func() bool {
		for _, r := range s.live() {
			if !s.readyAt(r.addr) {
				return false
			}
		}
		return true
	}, nil)
	if dead := len(s.replicas) - len(s.live()); dead > 0 {
		t.Fatalf("%d replicas exited while the database was down", dead)
	}
	h.finish(o)
}
