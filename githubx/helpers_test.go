package githubx

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

var (
	keyOnce sync.Once
	keyPEM  []byte
)

// testKey returns a PEM RSA key generated once per test binary.
func testKey(t *testing.T) []byte {
	t.Helper()
	keyOnce.Do(func() {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		keyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	})
	return keyPEM
}

var testRepo = queue.Repo{Host: "github.com", Owner: "o", Name: "r"}

const testInstallation = 42

// fakeAPI is one httptest server per test answering the App's
// installation lookup and token minting, plus the routes a test adds.
type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server
	mux *http.ServeMux

	lookups atomic.Int32 // GET /repos/{o}/{r}/installation
	tokens  atomic.Int32 // POST /app/installations/{id}/access_tokens

	mu    sync.Mutex
	calls []string // "METHOD /path" of test routes, in order
}

func newFakeAPI(t *testing.T) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, mux: http.NewServeMux()}
	f.mux.HandleFunc("GET /repos/{owner}/{repo}/installation", func(w http.ResponseWriter, r *http.Request) {
		f.lookups.Add(1)
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			t.Errorf("installation lookup without App JWT: %q", r.Header.Get("Authorization"))
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": testInstallation})
	})
	f.mux.HandleFunc("POST /app/installations/{id}/access_tokens", func(w http.ResponseWriter, r *http.Request) {
		f.tokens.Add(1)
		writeJSON(w, http.StatusCreated, map[string]any{
			"token":      "tok-" + r.PathValue("id"),
			"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		})
	})
	f.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL.EscapedPath())
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found"})
	})
	f.srv = httptest.NewServer(f.mux)
	t.Cleanup(f.srv.Close)
	return f
}

// handle adds a route (a Go ServeMux pattern such as "GET /repos/o/r/pulls/1")
// and records its calls.
func (f *fakeAPI) handle(pattern string, h http.HandlerFunc) {
	f.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.calls = append(f.calls, r.Method+" "+r.URL.EscapedPath())
		f.mu.Unlock()
		if got := r.Header.Get("Authorization"); !strings.HasPrefix(got, "token ") && !strings.HasPrefix(got, "Bearer ") {
			f.t.Errorf("%s %s without credentials", r.Method, r.URL.Path)
		}
		h(w, r)
	})
}

func (f *fakeAPI) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// sleeps records the waits the retry middleware asked for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// client returns a Client talking to f whose retries and rate-limit
// pauses record their waits (without waiting: the budget's clock moves
// forward by each pause).
func (f *fakeAPI) client(opts ...Option) (*Client, *sleeps) {
	f.t.Helper()
	sl := &sleeps{}
	base := []Option{
		WithRetryPolicy(RetryPolicy{Sleep: sl.sleep, Now: func() time.Time { return testNow }, Jitter: func() float64 { return 0.5 }}),
		WithClock(func() time.Time { return testNow }),
		WithBudgetClock(&autoClock{now: testNow, sl: sl}),
	}
	c, err := New(Config{
		V3APIURL:   f.srv.URL + "/",
		V4APIURL:   f.srv.URL + "/graphql",
		AppID:      123,
		PrivateKey: testKey(f.t),
	}, append(base, opts...)...)
	if err != nil {
		f.t.Fatalf("New: %v", err)
	}
	return c, sl
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if v != nil {
		_ = json.NewEncoder(w).Encode(v)
	}
}

// wantBody checks that the JSON request body equals want (as JSON values).
func wantBody(t *testing.T, r *http.Request, want string) {
	t.Helper()
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("read body: %v", err)
		return
	}
	var got, exp any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Errorf("%s %s: body %q is not JSON: %v", r.Method, r.URL.Path, raw, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatalf("bad want JSON %q: %v", want, err)
	}
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("%s %s body = %s, want %s", r.Method, r.URL.Path, raw, want)
	}
}

func ghError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

func mustEqual[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func decode(t *testing.T, r *http.Request, v any) {
	t.Helper()
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		t.Errorf("%s %s: decode body: %v", r.Method, r.URL.Path, err)
	}
}
