package app

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/handlers/inbox"
	"github.com/mergequeue/mq/handlers/secheaders"
)

// wantSecurityHeaders checks the headers every response carries (see
// package secheaders); Strict-Transport-Security only when hsts.
func wantSecurityHeaders(t *testing.T, what string, h http.Header, hsts bool) {
	t.Helper()
	want := map[string]string{
		"X-Frame-Options":           "DENY",
		"X-Content-Type-Options":    "nosniff",
		"Referrer-Policy":           "same-origin",
		"Strict-Transport-Security": "",
	}
	if hsts {
		want["Strict-Transport-Security"] = "max-age=31536000"
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", what, k, got, v)
		}
	}
	csp := h.Get("Content-Security-Policy")
	for _, d := range []string{"frame-ancestors 'none'", "default-src 'self'", "base-uri 'none'", "object-src 'none'"} {
		if !strings.Contains(csp, d) {
			t.Errorf("%s: Content-Security-Policy %q lacks %s", what, csp, d)
		}
	}
}

// Every kind of route answers with the security headers, whatever it
// answers: dashboard pages, redirects and fragments, the static assets,
// the REST API, webhooks (stored, forged, too large), /metrics, /healthz
// and unknown paths. The public URL is http: no Strict-Transport-Security.
func TestSecurityHeadersOnEveryRoute(t *testing.T) {
	m := newMetricsApp(t)
	for _, r := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/", http.StatusSeeOther},
		{"GET", "/login", http.StatusOK},
		{"GET", "/fragments/queues", http.StatusUnauthorized},
		{"GET", "/static/style.css", http.StatusOK},
		{"POST", "/v1/getQueue", http.StatusUnauthorized},
		{"GET", "/metrics", http.StatusOK},
		{"GET", "/healthz", http.StatusOK},
		{"GET", "/no/such/page", http.StatusNotFound},
	} {
		req, err := http.NewRequest(r.method, m.srv.URL+r.path, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != r.status {
			t.Errorf("%s %s: %d, want %d", r.method, r.path, resp.StatusCode, r.status)
		}
		wantSecurityHeaders(t, r.method+" "+r.path, resp.Header, false)
	}
	wantSecurityHeaders(t, "a stored webhook", m.webhook(t, "ping", "d-1", metricsTestSecret, "").Header, false)
	wantSecurityHeaders(t, "a forged webhook", m.webhook(t, "ping", "d-2", "wrong-secret", "").Header, false)
	tooBig := rawPost(t, m.srv.Listener.Addr().String(), "/api/github/hook", inbox.MaxBodyBytes+1, map[string]string{
		inbox.HeaderEvent: "push", inbox.HeaderDelivery: "d-3", inbox.HeaderSignature: "sha256=" + strings.Repeat("0", 64)})
	if tooBig.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a webhook over the limit: %d, want 413", tooBig.StatusCode)
	}
	wantSecurityHeaders(t, "a webhook over the limit", tooBig.Header, false)
}

// With an https public URL every response also says
// Strict-Transport-Security; with an http one (above) none does.
func TestStrictTransportSecurityWithHTTPSPublicURL(t *testing.T) {
	d := newRoutesEnv(t, "")
	d.app.cfg.Server.PublicURL = "https://mq.example.com/"
	d.rewire()
	for _, path := range []string{"/", "/login", "/static/style.css", "/metrics", "/healthz", "/v1/getQueue", "/api/github/hook"} {
		wantSecurityHeaders(t, "GET "+path, d.do("GET", path).Header(), true)
	}
	d.app.cfg.Server.PublicURL = "HTTPS://MQ.EXAMPLE.COM"
	d.rewire()
	wantSecurityHeaders(t, "an upper-case https URL", d.do("GET", "/login").Header(), true)
}

// rawPost sends the headers of a POST declaring length bytes of body, and
// none of the body, and returns the answer.
func rawPost(t *testing.T, addr, path string, length int64, header map[string]string) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", path, addr, length)
	for k, v := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n")
	if _, err := io.WriteString(conn, b.String()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to POST %s: %v", path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// inlineCode finds what the Content-Security-Policy refuses in a page:
// inline scripts, style elements and attributes, event handler attributes
// and javascript: URLs.
var inlineCode = regexp.MustCompile(`(?i)<script(\s[^>]*)?>\s*[^<\s]|<style[\s>]|\sstyle\s*=|\son[a-z]+\s*=|javascript:`)

// The dashboard's pages keep to the policy: their code and styles come
// from /static/, none is inline (the browser would refuse it).
func TestDashboardPagesHaveNoInlineCode(t *testing.T) {
	d := newRoutesEnv(t, DashboardPublic)
	d.queue("acme", "widgets", "main")
	if m := inlineCode.FindString(newRoutesEnv(t, DashboardToken).page("/login")); m != "" {
		t.Errorf("GET /login holds inline code the policy refuses: %q", m)
	}
	for _, path := range []string{"/", "/repos/acme/widgets", "/repos/acme/widgets/history?branch=main",
		"/repos/acme/widgets/charts?branch=main", "/prs/acme/widgets/1", "/fragments/queues"} {
		rec := d.do("GET", path)
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d", path, rec.Code)
			continue
		}
		if m := inlineCode.FindString(rec.Body.String()); m != "" {
			t.Errorf("GET %s holds inline code the policy refuses: %q", path, m)
		}
	}
	if !strings.Contains(secheaders.ContentSecurityPolicy, "default-src 'self'") {
		t.Fatal("the policy no longer refuses inline code: this test checks nothing")
	}
}
