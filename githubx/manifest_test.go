package githubx

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// The App manifest conversion goes through githubx's middlewares: it is
// observed under its endpoint template, sent once even when GitHub fails
// it (a write: its outcome unknown, and a code works once), and a code
// that would make the path address another resource is refused before
// anything is sent.
func TestCompleteAppManifest(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var paths []string
	fail := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.EscapedPath())
		failing := fail
		mu.Unlock()
		if r.Header.Get("Authorization") != "" {
			t.Errorf("the conversion sent credentials: %q", r.Header.Get("Authorization"))
		}
		if failing {
			writeJSON(w, http.StatusBadGateway, map[string]any{"message": "try again"})
			return
		}
		writeJSON(w, http.StatusCreated, map[string]any{"id": 7, "slug": "mq", "name": "MQ", "html_url": "https://gh.example/apps/mq",
			"pem": "-----BEGIN RSA PRIVATE KEY-----\n", "webhook_secret": "whsec", "client_id": "Iv1.x", "client_secret": "cs"})
	}))
	t.Cleanup(srv.Close)
	rec := &calls{}
	ctx := context.Background()

	a, err := CompleteAppManifest(ctx, srv.URL, "c0de", WithObserver(rec))
	if err != nil || a.ID != 7 || a.Slug != "mq" || a.Name != "MQ" || a.HTMLURL != "https://gh.example/apps/mq" ||
		a.PEM == "" || a.WebhookSecret != "whsec" {
		t.Fatalf("CompleteAppManifest = %+v, %v", a, err)
	}
	if got := rec.to("/app-manifests/{code}/conversions"); len(got) != 1 || got[0].Method != "POST" || got[0].Status != http.StatusCreated {
		t.Errorf("observed %+v", rec.c)
	}

	mu.Lock()
	fail = true
	mu.Unlock()
	if _, err := CompleteAppManifest(ctx, srv.URL+"/", "c0de2"); StatusCode(err) != http.StatusBadGateway {
		t.Errorf("a 502: %v", err)
	}

	for _, code := range []string{"..", "../../app/installations", "a/../../app", ""} {
		if _, err := CompleteAppManifest(ctx, srv.URL, code); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("code %q: %v, want ErrUnsafePath", code, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"POST /app-manifests/c0de/conversions", "POST /app-manifests/c0de2/conversions"}; len(paths) != 2 ||
		paths[0] != want[0] || paths[1] != want[1] {
		t.Errorf("requests sent: %q, want %q", paths, want)
	}
}
