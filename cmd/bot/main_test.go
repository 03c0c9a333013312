package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

func runBot(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// `bot serve` without a webhook secret refuses to start with a clear message.
func TestServeRefusesWithoutWebhookSecret(t *testing.T) {
	t.Setenv("MQ_GITHUB_WEBHOOK_SECRET", "")
	dir := t.TempDir()
	pem, _, err := fakegithub.GenerateAppKey()
	if err != nil {
		t.Fatal(err)
	}
	keyPath := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(keyPath, pem, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "github:\n  app:\n    integration_id: 1\n    private_key_path: " + keyPath + "\ndatabase:\n  path: " + filepath.Join(dir, "mq.db") + "\n"
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runBot(t, "serve", "--config", cfgPath)
	if code == 0 {
		t.Fatalf("serve exited 0 without a webhook secret")
	}
	if !strings.Contains(stderr, "webhook_secret") {
		t.Errorf("stderr does not name the missing webhook secret: %q", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "mq.db")); err == nil {
		t.Errorf("serve created the database before refusing to start")
	}
}

func TestTokenLifecycle(t *testing.T) {
	db := filepath.Join(t.TempDir(), "mq.db")
	code, out, errOut := runBot(t, "token", "create", "--db", db, "--name", "ci", "--repo", "acme/widgets", "--expires", "720h")
	if code != 0 || !strings.Contains(out, "mq_") {
		t.Fatalf("create: %d %q %q", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	secret := lines[len(lines)-1]
	code, out, _ = runBot(t, "token", "list", "--db", db)
	if code != 0 || !strings.Contains(out, "ci") || !strings.Contains(out, "acme/widgets") || strings.Contains(out, secret) {
		t.Fatalf("list: %d %q (must list the token without its secret)", code, out)
	}
	if code, _, errOut = runBot(t, "token", "revoke", "--db", db, "ci"); code != 0 {
		t.Fatalf("revoke: %d %q", code, errOut)
	}
	if code, _, _ = runBot(t, "token", "revoke", "--db", db, "nope"); code == 0 {
		t.Errorf("revoking an unknown token succeeded")
	}
}

// --read-only creates a read-only token; list shows each token's access.
func TestTokenReadOnly(t *testing.T) {
	db := filepath.Join(t.TempDir(), "mq.db")
	if code, out, errOut := runBot(t, "token", "create", "--db", db, "--name", "viewer", "--read-only"); code != 0 ||
		!strings.Contains(out, `created read-only token "viewer"`) {
		t.Fatalf("create --read-only: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := runBot(t, "token", "create", "--db", db, "--name", "ci"); code != 0 ||
		!strings.Contains(out, `created full token "ci"`) {
		t.Fatalf("create: %d %q %q", code, out, errOut)
	}
	code, out, _ := runBot(t, "token", "list", "--db", db)
	if code != 0 {
		t.Fatalf("list: %d %q", code, out)
	}
	access := map[string]string{}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if f := strings.Fields(lines[0]); len(f) < 3 || f[2] != "ACCESS" {
		t.Fatalf("list header %q lacks ACCESS", lines[0])
	}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		access[f[1]] = f[2]
	}
	if access["viewer"] != "read-only" || access["ci"] != "full" {
		t.Errorf("list shows access %v, want viewer read-only and ci full:\n%s", access, out)
	}
}

func TestUsageAndVersion(t *testing.T) {
	if code, _, _ := runBot(t); code != 2 {
		t.Errorf("no args: exit %d, want 2", code)
	}
	if code, _, _ := runBot(t, "frobnicate"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	if code, out, _ := runBot(t, "version"); code != 0 || !strings.Contains(out, version) {
		t.Errorf("version: %d %q", code, out)
	}
}
