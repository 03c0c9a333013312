package app

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mergequeue/mq/handlers/inbox"
)

// The webhook body pool shows in /metrics: the bytes held by bodies being
// received, and a delivery refused 503 (with Retry-After and the security
// headers) once bodies in flight hold the pool.
func TestWebhookBodyPoolMetrics(t *testing.T) {
	m := newMetricsApp(t)
	addr := m.srv.Listener.Addr().String()
	hold := func(id string, n int) net.Conn { // declares 24 MiB, sends n bytes and stalls
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		fmt.Fprintf(conn, "POST /api/github/hook HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n%s: push\r\n%s: %s\r\n%s: sha256=%s\r\n\r\n",
			addr, 24<<20, inbox.HeaderEvent, inbox.HeaderDelivery, id, inbox.HeaderSignature, strings.Repeat("0", 64))
		go func() { _, _ = conn.Write(make([]byte, n)) }()
		return conn
	}
	var conns []net.Conn
	for i := range 5 {
		conns = append(conns, hold(fmt.Sprintf("hold-%d", i), 22<<20))
	}
	eventually(t, "five bodies of 22 MiB held", func() bool {
		_, fams := m.scrape(t)
		held, _ := value(fams, "mq_webhook_body_pool_bytes", nil)
		return held >= 5*22<<20
	})
	busy := rawPost(t, addr, "/api/github/hook", 24<<20, map[string]string{
		inbox.HeaderEvent: "push", inbox.HeaderDelivery: "d-busy", inbox.HeaderSignature: "sha256=" + strings.Repeat("0", 64)})
	if busy.StatusCode != http.StatusServiceUnavailable || busy.Header.Get("Retry-After") != "10" {
		t.Fatalf("a delivery past the pool: %d, Retry-After %q; want 503, 10", busy.StatusCode, busy.Header.Get("Retry-After"))
	}
	wantSecurityHeaders(t, "a delivery past the pool", busy.Header, false)
	_, fams := m.scrape(t)
	wantValue(t, fams, "mq_webhook_body_pool_refusals_total", nil, 1)
	wantValue(t, fams, "mq_http_requests_total", map[string]string{"route": "/api/github/hook", "method": "POST", "status": "503"}, 1)

	for _, c := range conns { // the senders go away: their bodies give the pool back
		c.Close()
	}
	eventually(t, "the pool to be given back", func() bool {
		_, fams := m.scrape(t)
		held, ok := value(fams, "mq_webhook_body_pool_bytes", nil)
		return ok && held == 0
	})
}
