package inbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/bodydeadline"
	"github.com/mergequeue/mq/handlers/requestid"
)

// MaxBodyBytes is the largest webhook body accepted (GitHub's own cap
// is 25 MB, so a real delivery is never refused). Larger bodies get 413,
// before any of the body is read when Content-Length says so.
const MaxBodyBytes = 25 << 20

// MaxBodyTime bounds the time a webhook body may take to arrive, in all,
// on top of the server's minimum-rate deadline: GitHub abandons a delivery
// after 10 s, so a body still arriving after 30 s is no delivery GitHub
// waits for, and only holds memory of the body pool.
const MaxBodyTime = 30 * time.Second

// RetryAfter is the Retry-After of a delivery refused 503 because the body
// pool was spent (GitHub does not retry by itself; other senders may).
const RetryAfter = 10 * time.Second

// Header names GitHub sets on every delivery.
const (
	HeaderEvent     = "X-GitHub-Event"
	HeaderDelivery  = "X-GitHub-Delivery"
	HeaderSignature = "X-Hub-Signature-256"
)

// maxHeaderLen bounds the event and delivery header values we store.
const maxHeaderLen = 200

// Receiver is the http.Handler for POST /api/github/hook. It acknowledges a
// delivery (200) only after the inbox committed it; a missing or wrong
// signature gets 401 and nothing is stored; a delivery id seen before gets
// 200 and changes nothing. Ping deliveries are stored like any other (the
// processor logs and ignores them), so "acknowledged" always means "stored".
//
// Bodies are bounded before they are authenticated: a Content-Length over
// MaxBodyBytes is refused 413 without reading; bodies are read into a pool
// of at most DefaultBodyBudget bytes in all (WithBodyBudget), and a body
// that does not fit is refused 503 with Retry-After (see bodyPool); each
// body must arrive within MaxBodyTime. The HMAC is computed as the body
// arrives.
type Receiver struct {
	secret []byte
	inbox  Store
	wake   func()
	now    func() time.Time
	log    zerolog.Logger
	pool   *bodyPool
	budget int64
	bodies bodydeadline.Policy
	obs    ReceiverObserver
	serve  http.Handler // serveHTTP under bodies
}

// ReceiverObserver is told about deliveries refused for want of room. It
// must be quick and safe for concurrent use.
type ReceiverObserver interface {
	// BodyPoolRefused reports a delivery answered 503 because the body
	// pool was spent.
	BodyPoolRefused()
}

// ReceiverOption configures a Receiver.
type ReceiverOption func(*Receiver)

// WithReceiverClock sets the clock that stamps Delivery.ReceivedAt.
func WithReceiverClock(now func() time.Time) ReceiverOption {
	return func(r *Receiver) { r.now = now }
}

// WithReceiverLogger sets the logger for refused and failed deliveries.
func WithReceiverLogger(l zerolog.Logger) ReceiverOption {
	return func(r *Receiver) { r.log = l }
}

// WithBodyBudget sets the byte budget of the bodies held in memory at once
// (DefaultBodyBudget when not set or not positive).
func WithBodyBudget(bytes int64) ReceiverOption {
	return func(r *Receiver) { r.budget = bytes }
}

// WithBodyDeadline sets the deadline policy the receiver applies to its
// bodies, inside whatever policy the server applies to every route (the
// stricter line wins). The default is bodydeadline's defaults with Max
// MaxBodyTime.
func WithBodyDeadline(p bodydeadline.Policy) ReceiverOption {
	return func(r *Receiver) { r.bodies = p }
}

// WithReceiverObserver reports the receiver's refusals for want of room
// to o.
func WithReceiverObserver(o ReceiverObserver) ReceiverOption {
	return func(r *Receiver) { r.obs = o }
}

// NewReceiver builds a Receiver. It refuses an empty secret (an unsigned or
// empty-key-signed webhook endpoint accepts anyone's events). wake is called
// without blocking after a new delivery is stored; nil means no wake-up.
func NewReceiver(secret string, inbox Store, wake func(), opts ...ReceiverOption) (*Receiver, error) {
	if secret == "" {
		return nil, errors.New("webhook secret must not be empty")
	}
	if inbox == nil {
		return nil, errors.New("webhook inbox must not be nil")
	}
	if wake == nil {
		wake = func() {}
	}
	r := &Receiver{
		secret: []byte(secret),
		inbox:  inbox,
		wake:   wake,
		now:    time.Now,
		log:    zerolog.Nop(),
		bodies: bodydeadline.Policy{Max: MaxBodyTime},
	}
	for _, o := range opts {
		o(r)
	}
	if r.budget <= 0 {
		r.budget = DefaultBodyBudget
	}
	r.pool = newBodyPool(r.budget)
	r.serve = r.bodies.Handler(http.HandlerFunc(r.serveHTTP))
	return r, nil
}

// BodyBytesHeld is the budget held by bodies being read now.
func (rc *Receiver) BodyBytesHeld() int64 { return rc.pool.heldBytes() }

// ServeHTTP verifies, stores and acknowledges one delivery. Every refusal
// is logged at warn level, once, with its reason, the delivery id, the
// event type and the remote address (see refuse); nothing secret is logged.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.serve.ServeHTTP(w, r)
}

// serveHTTP is ServeHTTP under the receiver's body deadline.
func (rc *Receiver) serveHTTP(w http.ResponseWriter, r *http.Request) {
	event := r.Header.Get(HeaderEvent)
	id := r.Header.Get(HeaderDelivery)
	log := requestid.Annotate(r.Context(), rc.log.With()).Str("github_delivery_id", clip(id)).
		Str("github_event_type", clip(event)).Str("remote_addr", r.RemoteAddr).Logger()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		refuse(w, &log, http.StatusMethodNotAllowed, "method not allowed", nil)
		return
	}
	if event == "" || id == "" {
		refuse(w, &log, http.StatusBadRequest, "missing "+HeaderEvent+" or "+HeaderDelivery+" header", nil)
		return
	}
	if len(event) > maxHeaderLen || len(id) > maxHeaderLen {
		refuse(w, &log, http.StatusBadRequest, "header value too long", nil)
		return
	}
	sig := r.Header.Get(HeaderSignature)
	if sig == "" {
		refuse(w, &log, http.StatusUnauthorized, "missing signature", nil)
		return
	}
	want, ok := parseSignature(sig)
	if !ok {
		refuse(w, &log, http.StatusUnauthorized, "malformed signature", nil)
		return
	}
	if r.ContentLength > MaxBodyBytes {
		refuse(w, &log, http.StatusRequestEntityTooLarge, "body too large",
			fmt.Errorf("declared length %d is over the limit of %d bytes", r.ContentLength, MaxBodyBytes))
		return
	}
	if !rc.pool.fits(r.ContentLength) {
		rc.busy(w, &log, fmt.Errorf("%w: declared length %d, %d of %d bytes held", errPoolSpent,
			r.ContentLength, rc.pool.heldBytes(), rc.budget))
		return
	}

	mac := hmac.New(sha256.New, rc.secret)
	body, err := rc.pool.read(r.Body, MaxBodyBytes, mac)
	defer body.release()
	if err != nil {
		switch {
		case errors.Is(err, errPoolSpent):
			rc.busy(w, &log, err)
		case errors.Is(err, errBodyTooLarge):
			refuse(w, &log, http.StatusRequestEntityTooLarge, "body too large", err)
		case errors.Is(err, bodydeadline.ErrTooSlow):
			refuse(w, &log, http.StatusRequestTimeout, "body too slow", err)
		default:
			refuse(w, &log, http.StatusBadRequest, "failed to read body", err)
		}
		return
	}
	if !hmac.Equal(mac.Sum(nil), want) {
		refuse(w, &log, http.StatusUnauthorized, "wrong signature", nil)
		return
	}
	raw := body.bytes()
	body.release()
	payload, err := extractPayload(r.Header.Get("Content-Type"), raw)
	if err != nil {
		refuse(w, &log, http.StatusBadRequest, err.Error(), nil)
		return
	}

	isNew, err := rc.inbox.PutDelivery(r.Context(), Delivery{
		ID:         id,
		Event:      event,
		Payload:    payload,
		ReceivedAt: rc.now().UTC(),
	})
	if err != nil {
		log.Error().Err(err).Msg("failed to store webhook delivery")
		httpError(w, http.StatusInternalServerError, "failed to store delivery")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, `{"ok":true}`)
	if isNew {
		log.Debug().Int("bytes", len(payload)).Msg("webhook delivery stored")
		rc.wake()
	} else {
		log.Debug().Msg("duplicate webhook delivery ignored")
	}
}

// busy refuses a delivery for want of room in the body pool: 503 with
// Retry-After, and the observer told.
func (rc *Receiver) busy(w http.ResponseWriter, log *zerolog.Logger, err error) {
	if rc.obs != nil {
		rc.obs.BodyPoolRefused()
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(RetryAfter/time.Second)))
	refuse(w, log, http.StatusServiceUnavailable, "too many webhook bodies in flight, retry later", err)
}

// refuse answers a refused delivery with status and the one-line reason,
// and logs it at warn with err, if any, as the detail. The logger carries
// the delivery's identity; neither reason nor err ever holds a secret (the
// signature is compared, never quoted).
func refuse(w http.ResponseWriter, log *zerolog.Logger, status int, reason string, err error) {
	log.Warn().Err(err).Str("reason", reason).Int("status", status).Msg("webhook refused")
	httpError(w, status, reason)
}

// clip bounds a header value quoted in a log line.
func clip(s string) string {
	if len(s) > maxHeaderLen {
		return strings.ToValidUTF8(s[:maxHeaderLen], "") + "…"
	}
	return s
}

// extractPayload returns the JSON payload of a body signed as a whole: the
// body itself, or its "payload" field for form-encoded deliveries.
func extractPayload(contentType string, body []byte) ([]byte, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return body, nil
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, fmt.Errorf("failed to parse form body: %w", err)
	}
	p := form.Get("payload")
	if p == "" {
		return nil, errors.New("form body has no payload field")
	}
	return []byte(p), nil
}

// httpError writes a one-line plain-text error.
func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n")
}
