// Package bodydeadline cuts request bodies that arrive too slowly, so a
// client trickling a body (a byte a second) cannot hold a connection and a
// handler for long, while a large body on a slow but real link still gets
// through.
//
// Policy.Handler wraps every route of the process. For a request with a
// body it keeps the connection's read deadline at
//
//	start + Grace + bytesRead/MinRate
//
// where start is the handler's first read of the body, and moves it forward
// as bytes arrive. The guarantees:
//
//   - A client that, at every moment, has delivered at least
//     MinRate × (elapsed − Grace) bytes is never cut: a body of N bytes may
//     take up to Grace + N/MinRate in all.
//   - A client that stalls or trickles is cut once it falls behind that
//     line: a stall lasts at most what Grace and the bytes already sent pay
//     for, and a trickle of a byte a second is cut after about Grace. The
//     read fails with an error matching ErrTooSlow (the handler answers 408
//     Request Timeout) and the connection is closed after the response.
//   - A handler that never reads the body (a request refused on its headers)
//     is bounded too: the deadline Grace after the request started also
//     bounds the server's discarding of the unread body afterwards.
//   - Once the body has been read to its end the deadline is cleared, so a
//     slow operation after the read is never cut by it.
//   - A Policy with Max bounds a body's time in all, whatever its rate: the
//     line above never passes start + Max.
//   - Handlers nest: a route may add its own, stricter policy inside the one
//     that wraps every route (the webhook receiver bounds its bodies at 30
//     s in all). A body under several policies keeps the earliest of their
//     lines, so a nested policy can only tighten the deadline.
//
// The handler is given a copy of the request; the temporary files of a
// multipart form it parses on that copy are removed when it returns (the
// server itself removes only those of the request it created).
//
// Requests without a body are left alone (the http.Server's
// ReadHeaderTimeout and IdleTimeout bound those connections), and so are
// ResponseWriters that cannot set deadlines (httptest.ResponseRecorder).
package bodydeadline

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// Defaults of a zero Policy: 10 s of grace, then 64 KiB/s. A 25 MiB webhook
// may take up to 410 s; GitHub itself gives up after 10 s.
const (
	DefaultGrace   = 10 * time.Second
	DefaultMinRate = 64 << 10 // bytes per second
)

// ErrTooSlow matches the error of a body read cut by the deadline (a
// *TooSlowError).
var ErrTooSlow = errors.New("request body arrived too slowly")

// TooSlowError is the error of a body read cut by the deadline. Its text
// says what arrived and what was required, and is safe to show the client.
type TooSlowError struct {
	Read    int64         // bytes read before the cut
	Elapsed time.Duration // since the first read
	Policy  Policy        // the policy whose line cut it (the strictest)
	Err     error         // the connection's timeout
}

func (e *TooSlowError) Error() string {
	limit := ""
	if e.Policy.Max > 0 {
		limit = fmt.Sprintf(", and at most %s in all", e.Policy.Max)
	}
	return fmt.Sprintf("%v: %d bytes in %s (allowed: %s, then at least %d bytes/s%s)",
		ErrTooSlow, e.Read, e.Elapsed.Round(time.Millisecond), e.Policy.Grace, e.Policy.MinRate, limit)
}

// Unwrap makes errors.Is match ErrTooSlow and the timeout.
func (e *TooSlowError) Unwrap() []error { return []error{ErrTooSlow, e.Err} }

// Policy is the minimum-rate deadline of request bodies. Zero fields take
// the defaults.
type Policy struct {
	// Grace is the time a body may take beyond what MinRate allows: the
	// budget for the first byte, stalls and connection set-up.
	Grace time.Duration
	// MinRate is the slowest sustained rate accepted, in bytes per second.
	MinRate int64
	// Max, when positive, bounds the time a body may take in all, whatever
	// its rate: for routes whose clients give up sooner anyway (GitHub
	// abandons a webhook delivery after 10 s), so that a slow sender cannot
	// hold the connection and what the handler buffered for long. Zero
	// means no bound beyond Grace and MinRate.
	Max time.Duration
}

// withDefaults fills the zero fields.
func (p Policy) withDefaults() Policy {
	if p.Grace <= 0 {
		p.Grace = DefaultGrace
	}
	if p.MinRate <= 0 {
		p.MinRate = DefaultMinRate
	}
	return p
}

// Deadline is the read deadline of a body first read at start once n bytes
// have arrived: the next byte (or the end) must come before it.
func (p Policy) Deadline(start time.Time, n int64) time.Time {
	p = p.withDefaults()
	perByte := time.Duration(n/p.MinRate)*time.Second + time.Duration(n%p.MinRate)*time.Second/time.Duration(p.MinRate)
	d := p.Grace + perByte
	if p.Max > 0 && (d > p.Max || d < 0) {
		d = p.Max
	}
	return start.Add(d)
}

// Handler applies the policy to every request next serves: the request's
// Body is replaced by one that keeps the connection's read deadline (see
// the package documentation). Inside another Handler it adds its policy to
// the body the outer one set up: the earliest line of the two applies.
func (p Policy) Handler(next http.Handler) http.Handler {
	p = p.withDefaults()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		if b, ok := r.Body.(*body); ok { // nested: tighten the outer guard
			b.policies = append(b.policies, p)
			if b.start.IsZero() {
				_ = b.rc.SetReadDeadline(b.deadline(time.Now(), 0))
			}
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(p.Deadline(time.Now(), 0)); err != nil {
			next.ServeHTTP(w, r) // no deadlines on this writer: unguarded
			return
		}
		inner := r.WithContext(r.Context())
		inner.Body = &body{ReadCloser: r.Body, rc: rc, policies: []Policy{p}}
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

// body is a request body that moves the read deadline as it is read.
type body struct {
	io.ReadCloser
	rc       *http.ResponseController
	policies []Policy // the outermost first; at least one
	start    time.Time
	n        int64
	err      error // sticky *TooSlowError
}

// deadline is the earliest line of the body's policies.
func (b *body) deadline(start time.Time, n int64) time.Time {
	d, _ := b.strictest(start, n)
	return d
}

// strictest is the earliest line of the body's policies and the policy
// that drew it.
func (b *body) strictest(start time.Time, n int64) (time.Time, Policy) {
	best, by := b.policies[0].Deadline(start, n), b.policies[0]
	for _, p := range b.policies[1:] {
		if d := p.Deadline(start, n); d.Before(best) {
			best, by = d, p
		}
	}
	return best, by
}

func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.start.IsZero() {
		b.start = time.Now()
		_ = b.rc.SetReadDeadline(b.deadline(b.start, 0))
	}
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	switch {
	case errors.Is(err, io.EOF):
		// Read to the end: the server's own read, which watches for the
		// client going away and would cancel the request's context on a
		// timeout, must not inherit the deadline. (net/http clears it when
		// it starts that read; this keeps it cleared whatever comes next.)
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		_, by := b.strictest(b.start, b.n)
		b.err = &TooSlowError{Read: b.n, Elapsed: time.Since(b.start), Policy: by, Err: err}
		err = b.err
	case n > 0:
		_ = b.rc.SetReadDeadline(b.deadline(b.start, b.n))
	}
	return n, err
}
