package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

func TestHealthcheckAgainstAStubServer(t *testing.T) {
	status := http.StatusOK
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path != "/healthz" && r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		fmt.Fprintln(w, "answer of", r.URL.Path)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	if code, out, errOut := runBot(t, "healthcheck", "--addr", addr); code != 0 || !strings.Contains(out, "/healthz") {
		t.Errorf("healthy server: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, _ := runBot(t, "healthcheck", "--addr", addr, "--ready"); code != 0 || !strings.Contains(out, "answer of /readyz") {
		t.Errorf("--ready: exit %d, stdout %q", code, out)
	}
	// The address from a config file; the port of a wildcard host is
	// checked on loopback.
	_, port, _ := net.SplitHostPort(addr)
	cfgPath := filepath.Join(t.TempDir(), "config.yml")
	if err := os.WriteFile(cfgPath, []byte("server:\n  address: \":"+port+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MQ_SERVER_ADDRESS", "")
	if code, _, errOut := runBot(t, "healthcheck", "--config", cfgPath); code != 0 {
		t.Errorf("address from the config: exit %d, stderr %q", code, errOut)
	}
	mu.Lock()
	status = http.StatusServiceUnavailable
	mu.Unlock()
	if code, _, errOut := runBot(t, "healthcheck", "--addr", addr); code != 1 || !strings.Contains(errOut, "503") {
		t.Errorf("unhealthy server: exit %d, stderr %q; want 1 naming the 503", code, errOut)
	}
	if code, _, errOut := runBot(t, "healthcheck", "--addr", "localhost"); code != 1 || !strings.Contains(errOut, "invalid listen address") {
		t.Errorf("bad address: exit %d, stderr %q", code, errOut)
	}
	if code, _, _ := runBot(t, "healthcheck", "--addr", addr, "extra"); code != 2 {
		t.Errorf("extra argument: exit %d, want 2", code)
	}
	if code, out, _ := runBot(t, "healthcheck", "--help"); code != 0 || !strings.Contains(out, "usage: bot healthcheck") {
		t.Errorf("--help: exit %d, stdout %q", code, out)
	}
}

// A server that accepts connections but never answers fails the check
// within its timeout.
func TestHealthcheckTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if code, _, errOut := runBot(t, "healthcheck", "--addr", ln.Addr().String(), "--timeout", "200ms"); code != 1 || !strings.Contains(errOut, "deadline") {
		t.Errorf("silent server: exit %d, stderr %q; want 1 after the deadline", code, errOut)
	}
}

// `bot serve` logs its version and the address it listens on; `bot
// healthcheck` exits 0 against it while it runs and 1 once it stopped.
func TestServeLogsAddressAndVersionAndHealthcheckFollowsIt(t *testing.T) {
	dir := t.TempDir()
	secret := "serve-healthcheck-secret-31d"
	fake, err := fakegithub.New(fakegithub.Options{Dir: filepath.Join(dir, "git"), WebhookSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	keyPath := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(keyPath, fake.AppPrivateKeyPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`server:
  address: "127.0.0.1:0"
github:
  web_url: %[1]q
  v3_api_url: %[1]q
  v4_api_url: "%[1]s/graphql"
  app:
    integration_id: %[2]d
    webhook_secret: %[3]q
    private_key_path: %[4]q
database:
  path: %[5]q
logging:
  format: json
`, fake.URL(), fake.AppID(), secret, keyPath, filepath.Join(dir, "mq.db"))
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"MQ_GITHUB_WEBHOOK_SECRET", "MQ_GITHUB_APP_ID", "MQ_GITHUB_PRIVATE_KEY", "MQ_GITHUB_PRIVATE_KEY_PATH",
		"MQ_DATABASE_PATH", "MQ_SERVER_ADDRESS", "MQ_PUBLIC_URL", "MQ_LOG_LEVEL"} {
		t.Setenv(k, "")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lockedBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--config", cfgPath}, &bytes.Buffer{}, logs) }()

	var addr string
	deadline := time.Now().Add(30 * time.Second)
	for addr == "" {
		for _, line := range strings.Split(logs.String(), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil && rec["message"] == "listening" {
				if rec["version"] != buildVersion() || rec["version"] == "" {
					t.Errorf("listening line %s: version %v, want %q", line, rec["version"], buildVersion())
				}
				addr, _ = rec["address"].(string)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listening line with the address in time; logs:\n%s", logs.String())
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d early; logs:\n%s", code, logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if code, out, errOut := runBot(t, "healthcheck", "--addr", addr); code != 0 {
		t.Errorf("healthcheck against the running server: exit %d, %q %q", code, out, errOut)
	}
	if code, _, errOut := runBot(t, "healthcheck", "--addr", addr, "--ready"); code != 0 {
		t.Errorf("readiness against the running server: exit %d, %q", code, errOut)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d after its context ended; logs:\n%s", code, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	if code, _, _ := runBot(t, "healthcheck", "--addr", addr, "--timeout", "2s"); code != 1 {
		t.Errorf("healthcheck with no server: exit %d, want 1", code)
	}
	if strings.Contains(logs.String(), secret) {
		t.Error("the logs show the webhook secret")
	}
}
