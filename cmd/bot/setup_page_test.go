package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The setup page answers only requests naming its own loopback address:
// a DNS-rebinding page (its own name in Host, any port, or no port) gets
// 421 and neither the form (which carries the state) nor the callback;
// 127.0.0.1, localhost and [::1] with the page's port are served.
func TestSetupPageChecksTheHost(t *testing.T) {
	t.Parallel()
	plan := &setupPlan{webURL: "https://github.example", publicURL: "https://mq.example.com", configPath: "/tmp/config.yml"}
	const state = "0123456789abcdef-state"
	page, err := newSetupPage(context.Background(), plan, appManifest{Name: "mq"}, state, "127.0.0.1:43117", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host string
		want int
	}{
		{"127.0.0.1:43117", http.StatusOK},
		{"localhost:43117", http.StatusOK},
		{"LOCALHOST:43117", http.StatusOK},
		{"[::1]:43117", http.StatusOK},
		{"evil.example:43117", http.StatusMisdirectedRequest},
		{"evil.example", http.StatusMisdirectedRequest},
		{"127.0.0.1", http.StatusMisdirectedRequest},
		{"127.0.0.1:80", http.StatusMisdirectedRequest},
		{"localhost.evil.example:43117", http.StatusMisdirectedRequest},
		{"", http.StatusMisdirectedRequest},
	}
	for _, tt := range tests {
		for _, path := range []string{"/", "/callback?code=x&state=" + state + "-not"} {
			r := httptest.NewRequest(http.MethodGet, path, nil)
			r.Host = tt.host
			w := httptest.NewRecorder()
			page.ServeHTTP(w, r)
			want := tt.want
			if path != "/" && want == http.StatusOK {
				want = http.StatusForbidden // served, but the state is wrong
			}
			if w.Code != want {
				t.Errorf("GET %s with Host %q = %d, want %d", path, tt.host, w.Code, want)
			}
			if tt.want != http.StatusOK && strings.Contains(w.Body.String(), state) {
				t.Errorf("GET %s with Host %q shows the state", path, tt.host)
			}
		}
	}
}
