package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers/bodydeadline"
	"github.com/mergequeue/mq/handlers/inbox"
)

// limitsPolicy scales the body deadline down so that a trickle is cut in
// 200 ms, while a 25 MiB webhook may take 25.2 s (reading it takes a few
// seconds under -race on a busy machine); the production defaults are 10 s
// and 410 s.
var limitsPolicy = bodydeadline.Policy{Grace: 200 * time.Millisecond, MinRate: 1 << 20}

// logBuffer collects the app's log; safe for concurrent writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// lines decodes the JSON log lines whose message is msg.
func (l *logBuffer) lines(t testing.TB, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["message"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// newLoggedHarness starts a sandbox whose app logs, at debug level, to the
// returned buffer.
func newLoggedHarness(t *testing.T, opts Options) (*harness, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	l := zerolog.New(logs).Level(zerolog.DebugLevel)
	opts.Logger = &l
	return newHarnessWith(t, opts), logs
}

// rawResult is what a raw client saw: a response, or the connection closed.
type rawResult struct {
	status  int
	body    string
	closed  bool
	elapsed time.Duration
}

// rawPost sends a POST over its own loopback connection: the headers at
// once, then body in chunks of chunk bytes, one per tick of every. It
// returns the response, or the connection closing, when it comes (within
// requestTimeout).
func (h *harness) rawPost(path string, header http.Header, body []byte, chunk int, every time.Duration) rawResult {
	h.t.Helper()
	addr := strings.TrimPrefix(h.env.URL, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		h.t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(requestTimeout))
	var head bytes.Buffer
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", path, addr, len(body))
	_ = header.Write(&head)
	head.WriteString("\r\n")
	start := time.Now()
	if _, err := conn.Write(head.Bytes()); err != nil {
		h.t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for rest := body; len(rest) > 0; {
			n := min(chunk, len(rest))
			if _, err := conn.Write(rest[:n]); err != nil {
				return // the server gave up on us
			}
			rest = rest[n:]
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			h.t.Fatalf("POST %s: no response and no close within %s", path, requestTimeout)
		}
		return rawResult{closed: true, elapsed: time.Since(start)}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return rawResult{status: resp.StatusCode, body: strings.TrimSpace(string(b)), elapsed: time.Since(start)}
}

// hookHeader is the header of a signed delivery.
func hookHeader(event, id, signature string) http.Header {
	return http.Header{"Content-Type": {"application/json"}, inbox.HeaderEvent: {event},
		inbox.HeaderDelivery: {id}, inbox.HeaderSignature: {signature}}
}

// stored reports whether the app stored delivery id (by offering the same
// id again: the inbox says whether it was new).
func (h *harness) stored(id string) bool {
	h.t.Helper()
	isNew, err := h.env.App().Store().PutDelivery(context.Background(),
		inbox.Delivery{ID: id, Event: "ping", Payload: []byte(`{}`), ReceivedAt: time.Now()})
	if err != nil {
		h.t.Fatal(err)
	}
	return !isNew
}

// REST and webhook bodies trickling in (a byte every 20 ms) are cut about
// Grace after the handler started reading: 408 or a closed connection,
// nothing submitted or stored, and the webhook refusal logged.
func TestSlowBodiesAreCut(t *testing.T) {
	t.Parallel()
	h, logs := newLoggedHarness(t, Options{BodyDeadline: limitsPolicy})
	h.createQueue(1)
	pr := h.openPR("slow", map[string]string{"slow.txt": "1\n"})
	// Bodies of 1000 bytes: a trickle of 20 s if not cut.
	submit := fmt.Sprintf(`{"repo":{"host":"github.com","owner":%q,"name":%q},"targetBranch":"main","pr":{"number":%d}}`, owner, repo, pr)
	submit += strings.Repeat(" ", 1000-len(submit))
	ping := `{"zen":"Slow is smooth.","hook_id":1}`
	ping += strings.Repeat(" ", 1000-len(ping))
	tests := []struct {
		name   string
		path   string
		header http.Header
		body   []byte
	}{
		{"REST", "/v1/submitPullRequest", http.Header{"Content-Type": {"application/json"}, "X-Api-Token": {h.token}}, []byte(submit)},
		{"webhook", "/api/github/hook", hookHeader("ping", "slow-delivery", inbox.Sign([]byte(h.env.WebhookSecret()), []byte(ping))), []byte(ping)},
	}
	for _, tt := range tests {
		got := h.rawPost(tt.path, tt.header, tt.body, 1, 20*time.Millisecond)
		if !got.closed && got.status != http.StatusRequestTimeout {
			t.Errorf("%s: got %d %q, want 408 or a closed connection", tt.name, got.status, got.body)
		}
		if !got.closed && !strings.Contains(got.body, "too slow") {
			t.Errorf("%s: body %q does not say why", tt.name, got.body)
		}
		if bound := limitsPolicy.Grace + 2*time.Second; got.elapsed > bound {
			t.Errorf("%s: cut after %s, want within %s", tt.name, got.elapsed, bound)
		}
	}
	if _, ok := h.entry(pr); ok {
		t.Errorf("#%d was submitted by a body that never arrived", pr)
	}
	if h.stored("slow-delivery") {
		t.Error("the slow delivery was stored")
	}
	h.waitFor("the slow webhook's refusal in the log", func() bool {
		for _, l := range logs.lines(t, "webhook refused") {
			if l["reason"] == "body too slow" && l["github_delivery_id"] == "slow-delivery" {
				return true
			}
		}
		return false
	}, logs.String)
}

// A full-size (25 MiB) webhook delivered at a steady pace above MinRate is
// stored and acknowledged, though it takes longer than Grace.
func TestFullSizeWebhookIsAccepted(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, Options{BodyDeadline: limitsPolicy})
	prefix, suffix := `{"zen":"`, `","hook_id":1}`
	body := []byte(prefix + strings.Repeat("z", inbox.MaxBodyBytes-len(prefix)-len(suffix)) + suffix)
	sig := inbox.Sign([]byte(h.env.WebhookSecret()), body)
	// 1 MiB every 20 ms (slower if the server reads slower): at least
	// 0.5 s, 2.5 times Grace, so only a deadline that moves with the bytes
	// lets it through.
	got := h.rawPost("/api/github/hook", hookHeader("ping", "full-size", sig), body, 1<<20, 20*time.Millisecond)
	if got.status != http.StatusOK {
		t.Fatalf("got %+v, want 200", got)
	}
	if got.elapsed < limitsPolicy.Grace {
		t.Errorf("delivered in %s: the test no longer outlasts Grace", got.elapsed)
	}
	if !h.stored("full-size") {
		t.Error("acknowledged but not stored")
	}
}

// Refused webhooks are logged through the app's logger: one warn line each,
// with the reason, the delivery id, the event type and the remote address.
func TestRefusedWebhooksAreLogged(t *testing.T) {
	t.Parallel()
	h, logs := newLoggedHarness(t, Options{CI: fakegithub.CIOptions{}})
	body := []byte(`{"zen":"Refuse politely.","hook_id":1}`)
	send := func(header http.Header) int {
		req, err := http.NewRequest(http.MethodPost, h.env.URL+"/api/github/hook", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = header
		resp, err := testHTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	tests := []struct {
		id, reason string
		header     http.Header
		status     int
	}{
		{"refused-wrong-sig", "wrong signature", hookHeader("ping", "refused-wrong-sig", inbox.Sign([]byte("not the secret"), body)), http.StatusUnauthorized},
		{"refused-no-sig", "missing signature", hookHeader("ping", "refused-no-sig", ""), http.StatusUnauthorized},
		{"", "missing X-GitHub-Event or X-GitHub-Delivery header", hookHeader("ping", "", inbox.Sign([]byte(h.env.WebhookSecret()), body)), http.StatusBadRequest},
	}
	for _, tt := range tests {
		for k, v := range tt.header {
			if len(v) == 1 && v[0] == "" {
				delete(tt.header, k)
			}
		}
		if got := send(tt.header); got != tt.status {
			t.Errorf("%s: status %d, want %d", tt.reason, got, tt.status)
		}
	}
	for _, tt := range tests {
		var found []map[string]any
		for _, l := range logs.lines(t, "webhook refused") {
			if l["reason"] == tt.reason {
				found = append(found, l)
			}
		}
		if len(found) != 1 {
			t.Errorf("%s: %d log lines, want 1:\n%s", tt.reason, len(found), logs.String())
			continue
		}
		l := found[0]
		addr, _ := l["remote_addr"].(string)
		if l["level"] != "warn" || l["github_delivery_id"] != tt.id || l["github_event_type"] != "ping" || !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Errorf("%s: logged %v", tt.reason, l)
		}
		if tt.id != "" && h.stored(tt.id) {
			t.Errorf("%s: the delivery was stored", tt.reason)
		}
	}
}
