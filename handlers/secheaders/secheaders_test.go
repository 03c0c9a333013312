package secheaders

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// Every response carries the headers, whatever the handler answers
// (a page, an error, a redirect), and Strict-Transport-Security only with
// HSTS.
func TestEveryResponseCarriesTheHeaders(t *testing.T) {
	t.Parallel()
	handlers := map[string]http.Handler{
		"page": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte("<!doctype html><p>hello"))
		}),
		"error":    http.NotFoundHandler(),
		"redirect": http.RedirectHandler("/login", http.StatusSeeOther),
	}
	for _, hsts := range []bool{false, true} {
		for name, h := range handlers {
			rec := httptest.NewRecorder()
			Handler(Options{HSTS: hsts}, h).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
			want := map[string]string{
				"Content-Security-Policy":   ContentSecurityPolicy,
				"X-Frame-Options":           "DENY",
				"X-Content-Type-Options":    "nosniff",
				"Referrer-Policy":           "same-origin",
				"Strict-Transport-Security": map[bool]string{true: "max-age=31536000"}[hsts],
			}
			for k, v := range want {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("%s (HSTS %v): %s = %q, want %q", name, hsts, k, got, v)
				}
			}
		}
	}
}
