package app

import (
	"context"
	"database/sql"
	"testing"

	_ "modernc.org/sqlite"
)

// A webhook acknowledged while the process stops (the inbox's processor
// already ended, the HTTP server still finishing its requests) is
// processed before Close returns: with replicas, the other processes may
// be stopping too, and nothing would take it.
func TestCloseProcessesWebhooksStoredWhileStopping(t *testing.T) {
	m := newMetricsApp(t)
	ctx, cancel := context.WithCancel(context.Background())
	if err := m.app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-m.app.inboxDone
	resp := m.webhook(t, "ping", "late-delivery", metricsTestSecret, "req-late")
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("webhook while stopping: %d, want it acknowledged", resp.StatusCode)
	}
	if err := m.app.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+m.app.cfg.Database.Path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var done bool
	if err := db.QueryRow(`SELECT done FROM deliveries WHERE id = ?`, "late-delivery").Scan(&done); err != nil {
		t.Fatalf("the acknowledged delivery: %v", err)
	}
	if !done {
		t.Error("a webhook acknowledged while stopping was left unprocessed at exit")
	}
}
