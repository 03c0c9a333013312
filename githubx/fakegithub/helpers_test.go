package fakegithub

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"
)

const (
	testAppID  = 42
	testSecret = "It's a Secret to Everybody"
	testOwner  = "acme"
	testRepo   = "widgets"
)

var (
	keyOnce sync.Once
	keyPEM  []byte
	keyRSA  *rsa.PrivateKey
)

// testKey generates one App key per test binary (RSA generation is slow).
func testKey(t *testing.T) ([]byte, *rsa.PrivateKey) {
	t.Helper()
	keyOnce.Do(func() {
		var err error
		if keyPEM, keyRSA, err = GenerateAppKey(); err != nil {
			panic(err)
		}
	})
	return keyPEM, keyRSA
}

// newServer starts a fake with the shared key and a repo acme/widgets
// holding README.md, closed at the end of the test.
func newServer(t *testing.T, opts Options) *Server {
	t.Helper()
	_, key := testKey(t)
	opts.AppID = testAppID
	opts.AppPublicKey = &key.PublicKey
	if opts.WebhookSecret == "" {
		opts.WebhookSecret = testSecret
	}
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(s.Close)
	if err := s.CreateRepo(testOwner, testRepo, map[string]string{"README.md": "hello\n"}); err != nil {
		t.Fatalf("CreateRepo: %v", err)
	}
	return s
}

// newClient returns a go-github client authenticated with an installation
// token, rooted at prefix ("/" or "/api/v3/").
func newClient(t *testing.T, s *Server, prefix string) *github.Client {
	t.Helper()
	c := github.NewClient(&http.Client{Timeout: requestTimeout}).WithAuthToken(s.IssueToken())
	u, err := url.Parse(s.URL() + prefix)
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL = u
	return c
}

// Each request to the fake and each wait for it has a bound of its own,
// generous for a busy machine running -race; a test or its subtests never
// share one deadline (a slow first step would starve the later ones). Tests
// call the API with t.Context(), which has no deadline: the clients below
// bound every request instead.
const (
	requestTimeout = 60 * time.Second // one HTTP request to the fake
	idleTimeout    = 60 * time.Second // one wait for the webhook queue to drain
)

// testHTTP is http.DefaultClient with a bound on each request.
var testHTTP = &http.Client{Timeout: requestTimeout}

// waitIdle waits, with a bound of its own, until every queued webhook has
// been delivered.
func waitIdle(t *testing.T, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), idleTimeout)
	defer cancel()
	if err := s.WaitWebhooksIdle(ctx); err != nil {
		t.Fatalf("webhooks not delivered within %v: %v", idleTimeout, err)
	}
}

// statusOf returns the HTTP status of a go-github error (0 if none).
func statusOf(resp *github.Response) int {
	if resp == nil || resp.Response == nil {
		return 0
	}
	return resp.StatusCode
}

// must fails the test on err and returns the string result.
func must(t *testing.T) func(string, error) string {
	return func(v string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// noErr fails the test at once on a setup step's error.
func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// hookEvent is one webhook received by a hookSink.
type hookEvent struct {
	Event   string
	Action  string
	Sender  string
	Payload map[string]any
}

// hookSink is a webhook receiver that validates signatures.
type hookSink struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	events []hookEvent
	bad    int
}

func newHookSink(t *testing.T, s *Server) *hookSink {
	t.Helper()
	// Events queued before the sink existed go nowhere.
	waitIdle(t, s)
	h := &hookSink{t: t}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := github.ValidatePayload(r, []byte(testSecret))
		if err != nil || r.Header.Get("X-GitHub-Delivery") == "" {
			h.mu.Lock()
			h.bad++
			h.mu.Unlock()
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var payload map[string]any
		_ = json.Unmarshal(body, &payload)
		ev := hookEvent{Event: github.WebHookType(r), Payload: payload}
		ev.Action, _ = payload["action"].(string)
		if sender, ok := payload["sender"].(map[string]any); ok {
			ev.Sender, _ = sender["login"].(string)
		}
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(h.srv.Close)
	s.SetWebhookURL(h.srv.URL)
	return h
}

// names returns "event.action" (or "event") for each received event after
// the fake is idle.
func (h *hookSink) names(s *Server) []string {
	h.t.Helper()
	waitIdle(h.t, s)
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.events))
	for _, e := range h.events {
		n := e.Event
		if e.Action != "" {
			n += "." + e.Action
		}
		out = append(out, n)
	}
	return out
}

func (h *hookSink) reset() {
	h.mu.Lock()
	h.events = nil
	h.mu.Unlock()
}

func (h *hookSink) all() []hookEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookEvent(nil), h.events...)
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
