package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// With server.admin_listen, `bot serve` serves Go's profiles on that
// loopback address, not on its public one, and stops both when its
// context ends.
func TestServeAdminListener(t *testing.T) {
	dir := t.TempDir()
	secret := "serve-admin-listener-secret-7"
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
  admin_listen: ":0"
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

	var public, admin string
	deadline := time.Now().Add(30 * time.Second)
	for public == "" || admin == "" {
		for _, line := range strings.Split(logs.String(), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) != nil {
				continue
			}
			switch {
			case rec["message"] == "listening":
				public, _ = rec["address"].(string)
			case strings.HasPrefix(fmt.Sprint(rec["message"]), "admin listener"):
				admin, _ = rec["address"].(string)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listening lines in time; logs:\n%s", logs.String())
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d early; logs:\n%s", code, logs.String())
		case <-time.After(20 * time.Millisecond): // polling interval
		}
	}
	if !strings.HasPrefix(admin, "127.0.0.1:") {
		t.Errorf("admin listener on %q, want loopback", admin)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	get := func(url string) (int, string) {
		resp, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get("http://" + admin + "/debug/pprof/goroutine?debug=1"); code != http.StatusOK || !strings.Contains(body, "goroutine profile:") {
		t.Errorf("admin listener: %d %.200s", code, body)
	}
	if _, body := get("http://" + public + "/debug/pprof/goroutine?debug=1"); strings.Contains(body, "goroutine profile:") {
		t.Error("the public listener serves the profiles")
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
	if _, err := client.Get("http://" + admin + "/debug/pprof/"); err == nil {
		t.Error("the admin listener still answers after serve stopped")
	}
}
