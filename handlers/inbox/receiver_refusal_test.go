package inbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/bodydeadline"
)

// logLines decodes the JSON log lines written to buf.
func logLines(t *testing.T, buf string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// wrongSignature is well-formed and matches no body under testSecret.
var wrongSignature = "sha256=" + strings.Repeat("0", 64)

// Every refusal logs exactly one warn line with its reason, the delivery
// id, the event type and the remote address, and stores nothing.
func TestReceiverLogsEveryRefusal(t *testing.T) {
	t.Parallel()
	body := []byte(`{"action":"opened"}`)
	form := []byte("nopayload=1")
	tests := []struct {
		name   string
		req    func() *http.Request
		status int
		reason string
	}{
		{"method", func() *http.Request {
			r := hookRequest("push", "d-1", "", nil)
			r.Method = http.MethodGet
			return r
		}, http.StatusMethodNotAllowed, "method not allowed"},
		{"missing delivery id", func() *http.Request { return hookRequest("push", "", Sign([]byte(testSecret), body), body) },
			http.StatusBadRequest, "missing X-GitHub-Event or X-GitHub-Delivery header"},
		{"header too long", func() *http.Request {
			return hookRequest(strings.Repeat("e", maxHeaderLen+1), "d-1", Sign([]byte(testSecret), body), body)
		}, http.StatusBadRequest, "header value too long"},
		{"missing signature", func() *http.Request { return hookRequest("push", "d-1", "", body) },
			http.StatusUnauthorized, "missing signature"},
		{"wrong signature", func() *http.Request { return hookRequest("push", "d-1", Sign([]byte("other"), body), body) },
			http.StatusUnauthorized, "wrong signature"},
		{"malformed signature", func() *http.Request { return hookRequest("push", "d-1", "sha256=00", body) },
			http.StatusUnauthorized, "malformed signature"},
		{"body too large", func() *http.Request {
			r := hookRequest("push", "d-1", wrongSignature, nil)
			r.Body = io.NopCloser(bytes.NewReader(make([]byte, MaxBodyBytes+1)))
			return r
		}, http.StatusRequestEntityTooLarge, "body too large"},
		{"read failure", func() *http.Request {
			r := hookRequest("push", "d-1", wrongSignature, nil)
			r.Body = io.NopCloser(iotest.ErrReader(errors.New("connection reset")))
			return r
		}, http.StatusBadRequest, "failed to read body"},
		{"bad form body", func() *http.Request {
			r := hookRequest("push", "d-1", Sign([]byte(testSecret), form), form)
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}, http.StatusBadRequest, "form body has no payload field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf syncBuffer
			inbox := newFakeInbox()
			r, err := NewReceiver(testSecret, inbox, nil, WithReceiverLogger(zerolog.New(&buf)))
			if err != nil {
				t.Fatal(err)
			}
			req := tt.req()
			req.RemoteAddr = "192.0.2.7:4242"
			rec := serve(r, req)
			if rec.Code != tt.status || inbox.count() != 0 {
				t.Fatalf("got %d with %d stored, want %d and nothing", rec.Code, inbox.count(), tt.status)
			}
			lines := logLines(t, buf.String())
			if len(lines) != 1 {
				t.Fatalf("logged %d lines, want 1:\n%s", len(lines), buf.String())
			}
			l := lines[0]
			want := map[string]any{"level": "warn", "reason": tt.reason, "remote_addr": "192.0.2.7:4242",
				"github_delivery_id": req.Header.Get(HeaderDelivery), "github_event_type": clip(req.Header.Get(HeaderEvent))}
			for k, v := range want {
				if l[k] != v {
					t.Errorf("%s = %v, want %v (line %v)", k, l[k], v, l)
				}
			}
			if strings.Contains(buf.String(), testSecret) {
				t.Errorf("the secret is in the log: %s", buf.String())
			}
		})
	}
}

// A webhook body trickling in over a real connection is answered 408 (or
// the connection closed) about Grace after it started, and nothing is
// stored.
func TestReceiverCutsASlowBody(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	inbox := newFakeInbox()
	r, err := NewReceiver(testSecret, inbox, nil, WithReceiverLogger(zerolog.New(&buf)))
	if err != nil {
		t.Fatal(err)
	}
	policy := bodydeadline.Policy{Grace: 150 * time.Millisecond, MinRate: 8 << 10}
	srv := httptest.NewServer(policy.Handler(r))
	defer srv.Close()
	body := bytes.Repeat([]byte("x"), 1000)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	fmt.Fprintf(conn, "POST /api/github/hook HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n%s: push\r\n%s: d-slow\r\n%s: %s\r\n\r\n",
		len(body), HeaderEvent, HeaderDelivery, HeaderSignature, Sign([]byte(testSecret), body))
	stop := make(chan struct{})
	defer close(stop)
	go func() { // a byte every 20 ms until the server gives up
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for _, b := range body {
			if _, err := conn.Write([]byte{b}); err != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	elapsed := time.Since(start)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestTimeout {
			t.Fatalf("got %d, want 408", resp.StatusCode)
		}
	}
	if bound := policy.Grace + 2*time.Second; elapsed > bound { // the trickle would take 20 s
		t.Errorf("cut after %s, want within %s", elapsed, bound)
	}
	if inbox.count() != 0 {
		t.Errorf("stored %d deliveries, want none", inbox.count())
	}
	waitFor(t, func() bool { return strings.Contains(buf.String(), `"reason":"body too slow"`) })
}

// A signed body arriving steadily, far above the minimum rate, is still
// cut once it has taken the receiver's Max in all (30 s by default: GitHub
// gives up after 10 s), so that a slow sender cannot hold the body pool;
// without Max the same sender is stored. The receiver applies the bound
// itself, with no deadline wrapped around it.
func TestReceiverBoundsABodyInAll(t *testing.T) {
	t.Parallel()
	if r, _ := NewReceiver(testSecret, newFakeInbox(), nil); r.bodies.Max != MaxBodyTime {
		t.Fatalf("the default body policy has Max %s, want %s", r.bodies.Max, MaxBodyTime)
	}
	body := []byte(`{"pad":"` + strings.Repeat("x", 12<<10) + `"}`)
	for _, tt := range []struct {
		max    time.Duration
		status int
	}{{400 * time.Millisecond, http.StatusRequestTimeout}, {0, http.StatusOK}} {
		inbox := newFakeInbox()
		policy := bodydeadline.Policy{Grace: 300 * time.Millisecond, MinRate: 1 << 10, Max: tt.max}
		r, err := NewReceiver(testSecret, inbox, nil, WithBodyDeadline(policy))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(r)
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		start := time.Now()
		fmt.Fprintf(conn, "POST /api/github/hook HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n%s: push\r\n%s: d-steady\r\n%s: %s\r\n\r\n",
			len(body), HeaderEvent, HeaderDelivery, HeaderSignature, Sign([]byte(testSecret), body))
		stop := make(chan struct{})
		go func() { // 512 bytes every 62 ms: about 8 KiB/s, 1.5 s in all
			tick := time.NewTicker(62 * time.Millisecond)
			defer tick.Stop()
			for rest := body; len(rest) > 0; rest = rest[min(512, len(rest)):] {
				if _, err := conn.Write(rest[:min(512, len(rest))]); err != nil {
					return
				}
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
		}()
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		elapsed := time.Since(start)
		close(stop)
		conn.Close()
		srv.Close()
		switch tt.status {
		case http.StatusOK:
			if err != nil || resp.StatusCode != http.StatusOK || inbox.count() != 1 {
				t.Fatalf("without Max: %v %v, %d stored; want 200 and stored", resp, err, inbox.count())
			}
		default:
			if err == nil && resp.StatusCode != tt.status {
				t.Fatalf("with Max %s: got %d, want %d or a closed connection", tt.max, resp.StatusCode, tt.status)
			}
			if bound := tt.max + 2*time.Second; elapsed > bound || elapsed < tt.max {
				t.Errorf("cut after %s, want between %s and %s", elapsed, tt.max, bound)
			}
			if inbox.count() != 0 {
				t.Errorf("stored %d deliveries, want none", inbox.count())
			}
		}
	}
}
