package app

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestAdminListenValidation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		listen  string
		remote  bool
		addr    string // AdminAddress
		wantErr string // "" = valid
	}{
		{"", false, "", ""},
		{":6060", false, "127.0.0.1:6060", ""},
		{"127.0.0.1:6060", false, "127.0.0.1:6060", ""},
		{"[::1]:6060", false, "[::1]:6060", ""},
		{"localhost:6060", false, "localhost:6060", ""},
		{"0.0.0.0:6060", false, "0.0.0.0:6060", "not a loopback address"},
		{"10.1.2.3:6060", false, "10.1.2.3:6060", "not a loopback address"},
		{"admin.example.com:6060", false, "admin.example.com:6060", "not a loopback address"},
		{"0.0.0.0:6060", true, "0.0.0.0:6060", ""},
		{"6060", false, "6060", "not host:port"},
	}
	for _, tc := range cases {
		c := validConfig(t)
		c.Server.AdminListen, c.Server.AdminAllowRemote = tc.listen, tc.remote
		if got := c.Server.AdminAddress(); got != tc.addr {
			t.Errorf("AdminAddress(%q) = %q, want %q", tc.listen, got, tc.addr)
		}
		err := c.Validate()
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("admin_listen %q (remote %v): %v", tc.listen, tc.remote, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), "server.admin_listen") || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("admin_listen %q (remote %v): err = %v, want server.admin_listen ... %q", tc.listen, tc.remote, err, tc.wantErr)
		}
	}
}

// The admin listener serves the profiles, and stops when its context ends.
func TestServeAdmin(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeAdmin(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Timeout: 30 * time.Second}
	for path, want := range map[string]string{
		"/debug/pprof/":                  "goroutine",
		"/debug/pprof/goroutine?debug=1": "goroutine profile:",
		"/debug/pprof/cmdline":           "",
	} {
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d, body lacks %q", path, resp.StatusCode, want)
		}
	}
	if resp, err := client.Get(base + "/healthz"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("the admin listener serves more than the profiles: %v %v", resp, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeAdmin: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ServeAdmin did not stop when its context ended")
	}
}

// The public routes never serve the profiles.
func TestPublicRoutesServeNoProfiles(t *testing.T) {
	t.Parallel()
	d := newRoutesEnv(t, DashboardPublic)
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/goroutine?debug=1", "/debug/pprof/cmdline"} {
		rec := d.do(http.MethodGet, path)
		if strings.Contains(rec.Body.String(), "goroutine profile") || strings.Contains(rec.Body.String(), "Types of profiles") {
			t.Errorf("GET %s on the public routes served a profile", path)
		}
	}
}
