package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/handlers/api/apitoken/apitokentest"
	"github.com/mergequeue/mq/queue"
)

// Secrets of the tokens every harness holds.
const (
	secretAll     = "mq_all"     // no scope: every repository
	secretRepo    = "mq_repo"    // Repos: Octo/Widgets
	secretOwner   = "mq_owner"   // Owners: ACME
	secretExpired = "mq_expired" // expired at testNow
	secretRevoked = "mq_revoked" // revoked
	secretFuture  = "mq_future"  // expires after testNow
)

var testNow = time.Date(2026, 7, 23, 1, 32, 50, 0, time.UTC)

// harness is the API behind a real loopback HTTP server, with fakes.
type harness struct {
	t      *testing.T
	svc    *fakeService
	tokens *apitokentest.Store
	srv    *httptest.Server
	logs   *syncBuffer
	// api is the handler under test, for tests that look at its state.
	api *API
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newHarness starts the API; edits change its Options first.
func newHarness(t *testing.T, edits ...func(*Options)) *harness {
	t.Helper()
	h := &harness{t: t, svc: &fakeService{}, tokens: apitokentest.NewStore(), logs: &syncBuffer{}}
	h.tokens.Add(secretAll, apitoken.Token{Name: "all"})
	h.tokens.Add(secretRepo, apitoken.Token{Name: "repo", Repos: []string{"Octo/Widgets"}})
	h.tokens.Add(secretOwner, apitoken.Token{Name: "owner", Owners: []string{"ACME"}})
	h.tokens.Add(secretExpired, apitoken.Token{Name: "expired", ExpiresAt: testNow})
	h.tokens.Add(secretRevoked, apitoken.Token{Name: "revoked", RevokedAt: testNow.Add(-time.Hour)})
	h.tokens.Add(secretFuture, apitoken.Token{Name: "future", ExpiresAt: testNow.Add(time.Millisecond)})
	opts := Options{
		Now:    func() time.Time { return testNow },
		Logger: zerolog.New(h.logs).Level(zerolog.DebugLevel),
	}
	for _, edit := range edits {
		edit(&opts)
	}
	handler := New(h.svc, h.svc, h.tokens, opts)
	h.api, _ = handler.(*API)
	mux := http.NewServeMux()
	mux.Handle("/v1/", handler)
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

// nowFunc is the harness clock.
func (h *harness) nowFunc() func() time.Time { return func() time.Time { return testNow } }

// response is a finished HTTP exchange.
type response struct {
	status int
	header http.Header
	body   string
}

// do sends method path with body; token "" sends no x-api-token header.
func (h *harness) do(method, path, token string, body io.Reader) response {
	h.t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+path, body)
	if err != nil {
		h.t.Fatalf("new request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set(TokenHeader, token)
	}
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	return response{status: resp.StatusCode, header: resp.Header, body: readAll(h.t, resp)}
}

// readAll reads a response body.
func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return string(b)
}

// post sends a JSON body to /v1/<op> with the unscoped token.
func (h *harness) post(op, body string) response {
	h.t.Helper()
	return h.do(http.MethodPost, "/v1/"+op, secretAll, strings.NewReader(body))
}

// wantError checks status and a one-line text/plain body containing each of want.
func wantError(t *testing.T, r response, status int, want ...string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d (body %q)", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type = %q, want text/plain; charset=utf-8", ct)
	}
	if !strings.HasSuffix(r.body, "\n") || strings.Count(r.body, "\n") != 1 || strings.TrimSpace(r.body) == "" {
		t.Errorf("body %q is not one non-empty line", r.body)
	}
	for _, w := range want {
		if !strings.Contains(r.body, w) {
			t.Errorf("body %q does not contain %q", r.body, w)
		}
	}
}

// wantEmptyObject checks a successful write: 200 with exactly {}.
func wantEmptyObject(t *testing.T, r response) {
	t.Helper()
	if r.status != http.StatusOK || r.body != "{}" {
		t.Fatalf("got %d %q, want 200 {}", r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
}

// decodeObject decodes a 200 JSON object keeping numbers exact.
func decodeObject(t *testing.T, r response) map[string]any {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status = %d, want 200 (body %q)", r.status, r.body)
	}
	dec := json.NewDecoder(strings.NewReader(r.body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decode %q: %v", r.body, err)
	}
	return m
}

var integerPattern = regexp.MustCompile(`^-?[0-9]+$`)

// jsonType names the JSON type of a decoded value; numbers are "integer"
// only when written without fraction or exponent.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if integerPattern.MatchString(v.String()) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

// wantShape checks that obj has exactly the keys of shape, each of the
// given JSON type ("string|null" allows either).
func wantShape(t *testing.T, where string, obj map[string]any, shape map[string]string) {
	t.Helper()
	var extra []string
	for k := range obj {
		if _, ok := shape[k]; !ok {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("%s: unexpected fields %v", where, extra)
	}
	for k, want := range shape {
		v, ok := obj[k]
		if !ok {
			t.Errorf("%s: field %q missing", where, k)
			continue
		}
		got := jsonType(v)
		if !strings.Contains("|"+want+"|", "|"+got+"|") {
			t.Errorf("%s: field %q is %s (%v), want %s", where, k, got, v, want)
		}
	}
}

// body builds a request body for repo octo/widgets, branch main, plus extra
// raw JSON members.
func body(extra ...string) string {
	members := append([]string{`"repo":{"host":"github.com","owner":"octo","name":"widgets"}`, `"targetBranch":"main"`}, extra...)
	return "{" + strings.Join(members, ",") + "}"
}

var testKey = queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "octo", Name: "widgets"}, Branch: "main"}
