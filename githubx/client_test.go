package githubx

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	key := testKey(t)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no app ID", Config{PrivateKey: key}, "app ID"},
		{"no key", Config{AppID: 1}, "private key is empty"},
		{"bad key", Config{AppID: 1, PrivateKey: []byte("not a key")}, "failed to create GitHub App client"},
		{"bad URL", Config{AppID: 1, PrivateKey: key, V3APIURL: "::"}, "invalid v3 API URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New() error = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestNewAppliesDefaults(t *testing.T) {
	t.Parallel()
	c, err := New(Config{AppID: 1, PrivateKey: testKey(t)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.Config()
	mustEqual(t, "V3APIURL", cfg.V3APIURL, DefaultV3APIURL)
	mustEqual(t, "Host", cfg.Host, queue.DefaultHost)
	mustEqual(t, "WebURL", cfg.WebURL, DefaultWebURL)
	mustEqual(t, "UserAgent", cfg.UserAgent, DefaultUserAgent)
	if cfg.PrivateKey != nil {
		t.Error("Config() exposes the private key")
	}
}

func TestAppSlugUsesAppJWT(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("GET /app", func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		parts := strings.Split(strings.TrimPrefix(auth, "Bearer "), ".")
		if len(parts) != 3 {
			t.Errorf("Authorization = %q, want a Bearer JWT", auth)
		} else {
			raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
			var claims struct {
				Iss string `json:"iss"`
			}
			_ = json.Unmarshal(raw, &claims)
			mustEqual(t, "JWT iss", claims.Iss, "123")
		}
		if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, DefaultUserAgent) {
			t.Errorf("User-Agent = %q", ua)
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": 123, "slug": "merge-queue"})
	})
	c, _ := f.client()
	slug, err := c.AppSlug(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "slug", slug, "merge-queue")
}

func TestAppSlugBadKeyAnswer(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("GET /app", func(w http.ResponseWriter, r *http.Request) {
		ghError(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
	})
	c, _ := f.client()
	_, err := c.AppSlug(t.Context())
	if err == nil || StatusCode(err) != http.StatusUnauthorized || errors.Is(err, queue.ErrTransient) {
		t.Fatalf("AppSlug() error = %v, want a non-transient 401", err)
	}
}

func TestInstallationResolutionIsCached(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	for _, path := range []string{"/repos/o/r/git/commits/c1", "/repos/o/other/git/commits/c1"} {
		f.handle("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			mustEqual(t, "Authorization", r.Header.Get("Authorization"), "token tok-42")
			writeJSON(w, http.StatusOK, map[string]any{"sha": "c1", "tree": map[string]any{"sha": "t1"}})
		})
	}
	c, _ := f.client()
	other := queue.Repo{Host: "github.com", Owner: "o", Name: "other"}
	for _, repo := range []queue.Repo{testRepo, testRepo, testRepo, other, other} {
		if _, err := c.TreeSHA(t.Context(), repo, "c1"); err != nil {
			t.Fatal(err)
		}
	}
	mustEqual(t, "installation lookups", f.lookups.Load(), int32(2)) // one per repo
	mustEqual(t, "tokens minted", f.tokens.Load(), int32(1))         // one per installation
}

func TestInstallationCacheInvalidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		status      int
		wantLookups int32
		wantTokens  int32
	}{
		{"404 re-resolves the installation", http.StatusNotFound, 2, 1},
		{"401 also drops the installation client", http.StatusUnauthorized, 2, 2},
		{"422 keeps the cache", http.StatusUnprocessableEntity, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handle("GET /repos/o/r/git/commits/bad", func(w http.ResponseWriter, r *http.Request) {
				ghError(w, tt.status, "nope")
			})
			f.handle("GET /repos/o/r/git/commits/good", func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, map[string]any{"sha": "good", "tree": map[string]any{"sha": "t"}})
			})
			c, _ := f.client()
			if _, err := c.TreeSHA(t.Context(), testRepo, "bad"); StatusCode(err) != tt.status {
				t.Fatalf("TreeSHA(bad) error = %v, want status %d", err, tt.status)
			}
			if _, err := c.TreeSHA(t.Context(), testRepo, "good"); err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "installation lookups", f.lookups.Load(), tt.wantLookups)
			mustEqual(t, "tokens minted", f.tokens.Load(), tt.wantTokens)
		})
	}
}

func TestNotInstalled(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("GET /repos/o/private/installation", func(w http.ResponseWriter, r *http.Request) {
		ghError(w, http.StatusNotFound, "Not Found")
	})
	c, _ := f.client()
	_, err := c.BranchHead(t.Context(), queue.Repo{Host: "github.com", Owner: "o", Name: "private"}, "main")
	if !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("BranchHead() error = %v, want ErrNotInstalled", err)
	}
}

func TestWrongHostIsRefused(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c, _ := f.client()
	_, err := c.BranchHead(t.Context(), queue.Repo{Host: "ghe.example.com", Owner: "o", Name: "r"}, "main")
	if err == nil || !strings.Contains(err.Error(), "ghe.example.com") {
		t.Fatalf("BranchHead() error = %v, want a host mismatch", err)
	}
	mustEqual(t, "lookups", f.lookups.Load(), int32(0))
}

func TestNetworkFailureIsTransient(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c, sl := f.client()
	f.srv.Close() // nothing listens any more
	_, err := c.GetPullRequest(t.Context(), testRepo, 7)
	if !errors.Is(err, queue.ErrTransient) {
		t.Fatalf("GetPullRequest() error = %v, want ErrTransient", err)
	}
	mustEqual(t, "retries of the GET", len(sl.all()), DefaultRetryPolicy().MaxAttempts-1)
}
