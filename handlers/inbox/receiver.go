package inbox

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/bodydeadline"
	"github.com/mergequeue/mq/handlers/requestid"
)

// MaxBodyBytes is the largest webhook body accepted (GitHub's own cap
// is 25 MB, so a real delivery is never refused). Larger bodies get 413.
const MaxBodyBytes = 25 << 20

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
type Receiver struct {
	secret []byte
	inbox  Store
	wake   func()
	now    func() time.Time
	log    zerolog.Logger
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
	}
	for _, o := range opts {
		o(r)
	}
	return r, nil
}

// ServeHTTP verifies, stores and acknowledges one delivery. Every refusal
// is logged at warn level, once, with its reason, the delivery id, the
// event type and the remote address (see refuse); nothing secret is logged.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			refuse(w, &log, http.StatusRequestEntityTooLarge, "body too large", err)
		case errors.Is(err, bodydeadline.ErrTooSlow):
			refuse(w, &log, http.StatusRequestTimeout, "body too slow", err)
		default:
			refuse(w, &log, http.StatusBadRequest, "failed to read body", err)
		}
		return
	}
	if !ValidSignature(rc.secret, body, sig) {
		refuse(w, &log, http.StatusUnauthorized, "wrong signature", nil)
		return
	}
	payload, err := extractPayload(r.Header.Get("Content-Type"), body)
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
