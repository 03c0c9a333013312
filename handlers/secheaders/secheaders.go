// Package secheaders sets the browser security headers on every response
// of the process — dashboard pages, the REST API, webhooks, /metrics,
// errors and redirects alike — so that no route can be framed, sniffed
// into another type, leak its URL to another site or be reached over plain
// http once a browser has seen it over https:
//
//   - X-Frame-Options: DENY and Content-Security-Policy frame-ancestors
//     'none': no page of the service in a frame (clickjacking).
//   - Content-Security-Policy (ContentSecurityPolicy): scripts, styles,
//     images, fonts and connections only from the service itself, no
//     inline script or style, no plugins, no <base>, forms posted only to
//     the service. The dashboard keeps to it: its script and stylesheet
//     are files under /static/.
//   - X-Content-Type-Options: nosniff: a response is only ever what its
//     Content-Type says.
//   - Referrer-Policy: same-origin: links out (to GitHub) carry no
//     Referer, so the service's URLs stay private.
//   - Strict-Transport-Security (HSTSValue) when Options.HSTS is set, which
//     the application does exactly when its public URL is https (a browser
//     ignores the header over http, and an http deployment must not ask
//     for https).
//
// The headers are set before the wrapped handler runs; a handler may
// replace one for its own response.
package secheaders

import "net/http"

// Header values.
const (
	// ContentSecurityPolicy is the Content-Security-Policy of every
	// response.
	ContentSecurityPolicy = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"
	// FrameOptions is the X-Frame-Options of every response (for browsers
	// that predate frame-ancestors).
	FrameOptions = "DENY"
	// ReferrerPolicy is the Referrer-Policy of every response.
	ReferrerPolicy = "same-origin"
	// HSTSValue is the Strict-Transport-Security of every response when
	// Options.HSTS is set: one year, this host only (the operator's other
	// subdomains are not the service's to decide).
	HSTSValue = "max-age=31536000"
)

// Options choose the headers that depend on the deployment.
type Options struct {
	// HSTS sends Strict-Transport-Security: set it when the service's
	// public URL is https, and only then.
	HSTS bool
}

// Handler sets the security headers on every response next writes.
func Handler(o Options, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Frame-Options", FrameOptions)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", ReferrerPolicy)
		if o.HSTS {
			h.Set("Strict-Transport-Security", HSTSValue)
		}
		next.ServeHTTP(w, r)
	})
}
