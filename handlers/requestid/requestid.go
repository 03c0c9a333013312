// Package requestid gives every HTTP request an id: a sane X-Request-Id
// sent by the client (a proxy, a load balancer) is kept, anything else is
// replaced by a fresh random one. The id is echoed in the response header
// and carried, as request_id, by the request's logger in its context, so
// that every log line written while serving the request can be matched to
// the response the client saw.
package requestid

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"

	"github.com/rs/zerolog"
)

// Header is the request and response header carrying the id.
const Header = "X-Request-Id"

// LogKey is the log field holding the id.
const LogKey = "request_id"

// MaxLen bounds an accepted incoming id; longer ones are replaced.
const MaxLen = 64

type ctxKey struct{}

// Middleware sets the request id (see Valid and New) on the response
// header before next runs, and puts into the request's context the id and
// a logger carrying it: the context's logger when it has one, else base.
//
// next is handed a copy of the request (http.Request.WithContext). The
// server removes the temporary files of a multipart form parsed on the
// request it created, never those of a copy, so Middleware removes the
// files of a form next parsed on its copy once next returns (or panics).
func Middleware(base zerolog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(Header)
		if !Valid(id) {
			id = New()
		}
		w.Header().Set(Header, id)
		log := base
		if l := zerolog.Ctx(r.Context()); l.GetLevel() != zerolog.Disabled {
			log = *l
		}
		log = log.With().Str(LogKey, id).Logger()
		ctx := context.WithValue(log.WithContext(r.Context()), ctxKey{}, id)
		inner := r.WithContext(ctx)
		defer removeCopiedForm(r, inner)
		next.ServeHTTP(w, inner)
	})
}

// removeCopiedForm removes the temporary files of the multipart form
// parsed on copied, the copy of orig handed to the handler, unless the form
// is orig's own (parsed before the copy was made: orig's owner removes it).
// A failure is ignored: nothing else refers to the files.
func removeCopiedForm(orig, copied *http.Request) {
	if copied.MultipartForm != nil && copied.MultipartForm != orig.MultipartForm {
		_ = copied.MultipartForm.RemoveAll()
	}
}

// FromContext returns the request id in ctx ("" when there is none).
func FromContext(ctx context.Context) string {
	id, _ := ctx.Value(ctxKey{}).(string)
	return id
}

// Annotate adds the request id in ctx, if any, to a logger being built:
// for handlers that log through a logger of their own rather than the
// context's.
func Annotate(ctx context.Context, lc zerolog.Context) zerolog.Context {
	if id := FromContext(ctx); id != "" {
		return lc.Str(LogKey, id)
	}
	return lc
}

// Valid reports whether id may be kept as sent: 1 to MaxLen characters out
// of letters, digits and "-", "_", ".", ":" — enough for UUIDs and the ids
// of common proxies, nothing that could forge a log line or a header.
func Valid(id string) bool {
	if id == "" || len(id) > MaxLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// New returns a fresh random id: 16 random bytes in hex.
func New() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b[:])
}
