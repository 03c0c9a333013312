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
	c := github.NewClient(nil).WithAuthToken(s.IssueToken())
	u, err := url.Parse(s.URL() + prefix)
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL = u
	return c
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
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
	if err := s.WaitWebhooksIdle(ctxT(t)); err != nil {
		t.Fatal(err)
	}
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
	if err := s.WaitWebhooksIdle(ctxT(h.t)); err != nil {
		h.t.Fatal(err)
	}
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
