package app

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue"
)

// idleCost runs an app on SQLite with n queues that have nothing to do
// (reconcile interval 50 ms) and returns the statements it sent to its
// database during ten reconciler passes (the least of three such
// windows), once the queues' first syncs settled (no worker left running)
// and ten passes of warm-up went by.
func idleCost(t *testing.T, n int) int64 {
	t.Helper()
	dir := t.TempDir()
	fake, err := fakegithub.New(fakegithub.Options{Dir: filepath.Join(dir, "git"), WebhookSecret: metricsTestSecret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	if err := fake.CreateRepo("acme", "widgets", map[string]string{"README.md": "widgets\n"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig("", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.GitHub.WebURL, cfg.GitHub.V3APIURL, cfg.GitHub.V4APIURL = fake.URL(), fake.URL()+"/", fake.URL()+"/graphql"
	cfg.GitHub.App.IntegrationID = fake.AppID()
	cfg.GitHub.App.PrivateKey = string(fake.AppPrivateKeyPEM())
	cfg.GitHub.App.WebhookSecret = metricsTestSecret
	cfg.Database.Path = filepath.Join(dir, "mq.db")
	cfg.Engine.ReconcileInterval = 50 * time.Millisecond
	log := zerolog.Nop()
	a, err := New(t.Context(), cfg, Options{Logger: &log})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		key := queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}, Branch: fmt.Sprintf("idle-%d", i)}
		if _, err := a.svc.CreateQueue(t.Context(), key, queue.DefaultSettings()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := a.Close(); err != nil {
			t.Error(err)
		}
	})
	waitUntil(t, func() bool {
		a.workers.mu.Lock()
		defer a.workers.mu.Unlock()
		return len(a.workers.wakes) == 0
	})
	counted := a.store.(interface{ Statements() int64 })
	passes := func() float64 {
		var m dto.Metric
		if err := a.metrics.reconciler.passes.WithLabelValues("ok").Write(&m); err != nil {
			t.Fatal(err)
		}
		return m.GetCounter().GetValue()
	}
	// The first pass of the stall watch reads every queue once (for an
	// alert an earlier process left raised), and on a loaded machine it
	// may still run after ten passes of warm-up: the cost is the least of
	// three windows of ten passes. A cost per idle queue and interval is
	// in every window; a one-time pass is in one at most.
	warm := passes()
	waitUntil(t, func() bool { return passes() >= warm+10 })
	least := int64(-1)
	for range 3 {
		p0, s0 := passes(), counted.Statements()
		waitUntil(t, func() bool { return passes() >= p0+10 })
		if c := counted.Statements() - s0; least < 0 || c < least {
			least = c
		}
	}
	return least
}

// An idle queue costs the database nothing per interval: with 200 idle
// queues the process sends no more statements per reconciler pass than
// with 2 (its reconciler, stall watch, inbox and outbox read what has work,
// not every queue), so 10,000 idle queues cost what 100 do. Today's
// workers synced every queue every interval (three reads each).
func TestIdleQueuesCostNoStatementsPerQueue(t *testing.T) {
	few := idleCost(t, 2)
	many := idleCost(t, 200)
	t.Logf("statements over ten reconciler passes: %d with 2 idle queues, %d with 200", few, many)
	// Slack for the loops that poll by the clock (a pass over 200 queues'
	// rows takes longer); syncing each idle queue at every interval would
	// cost some 6,000.
	if many > 2*few+100 {
		t.Errorf("200 idle queues cost %d statements over ten reconciler passes, 2 cost %d: the cost grows with the idle queues", many, few)
	}
}
