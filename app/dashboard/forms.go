package dashboard

import (
	"errors"
	"mime"
	"net/http"
	"net/url"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/bodydeadline"
)

// maxSignInForm bounds the body of the sign-in and sign-out forms: a token,
// a destination path and room to spare.
const maxSignInForm = 4 << 10

// formContentType is the only body the sign-in and sign-out forms accept
// (what a browser sends for an HTML form without a file input).
const formContentType = "application/x-www-form-urlencoded"

// crossOrigin refuses cross-origin browser POSTs (CSRF) with 403: a
// request whose Sec-Fetch-Site says another site, or, from browsers that do
// not send it, whose Origin is neither this request's Host nor the
// configured public URL's origin (for a proxy that rewrites Host). Requests
// without either header (scripts, curl) are let through, as
// http.CrossOriginProtection does.
func (d *Dashboard) crossOrigin() *http.CrossOriginProtection {
	p := http.NewCrossOriginProtection()
	if d.cfg.PublicURL != "" {
		if origin, ok := urlOrigin(d.cfg.PublicURL); ok {
			// Refused only for a malformed host; Host and Sec-Fetch-Site
			// still protect then.
			_ = p.AddTrustedOrigin(origin)
		}
	}
	p.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		zerolog.Ctx(r.Context()).Info().Str("path", r.URL.Path).Str("origin", r.Header.Get("Origin")).
			Str("sec_fetch_site", r.Header.Get("Sec-Fetch-Site")).Msg("dashboard: refused a cross-origin form")
		http.Error(w, "forbidden: cross-origin request refused; use the form on this dashboard's own page", http.StatusForbidden)
	}))
	return p
}

// urlOrigin is the scheme://host[:port] of an absolute http(s) URL.
func urlOrigin(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", false
	}
	return u.Scheme + "://" + u.Host, true
}

// smallForm parses the small url-encoded form of a sign-in or sign-out POST
// before next runs, refusing early what such a form never is: a declared
// body over maxSignInForm is 413 before a byte of it is read, a body of any
// other type (multipart/form-data above all, whose parts would be spooled
// to disk) 415, a body that outgrows the limit while read 413. An empty
// body needs no type.
func smallForm(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > maxSignInForm {
			w.Header().Set("Connection", "close")
			http.Error(w, "request body too large: a sign-in form is at most 4 KiB", http.StatusRequestEntityTooLarge)
			return
		}
		if r.ContentLength != 0 {
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err != nil || mt != formContentType {
				w.Header().Set("Connection", "close")
				http.Error(w, "unsupported media type: send the form as "+formContentType, http.StatusUnsupportedMediaType)
				return
			}
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxSignInForm)
		if err := r.ParseForm(); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				http.Error(w, "request body too large: a sign-in form is at most 4 KiB", http.StatusRequestEntityTooLarge)
				return
			}
			if errors.Is(err, bodydeadline.ErrTooSlow) {
				http.Error(w, "request timeout: "+err.Error(), http.StatusRequestTimeout)
				return
			}
			http.Error(w, "bad request: the form could not be read", http.StatusBadRequest)
			return
		}
		next(w, r)
	}
}
