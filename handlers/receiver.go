package handlers

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

// MaxWebhookBodyBytes is the largest webhook body accepted (GitHub's own cap
// is 25 MB, so a real delivery is never refused). Larger bodies get 413.
const MaxWebhookBodyBytes = 25 << 20

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
	inbox  queue.Inbox
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
func NewReceiver(secret string, inbox queue.Inbox, wake func(), opts ...ReceiverOption) (*Receiver, error) {
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

// ServeHTTP verifies, stores and acknowledges one delivery.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		httpError(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	event := r.Header.Get(HeaderEvent)
	id := r.Header.Get(HeaderDelivery)
	if event == "" || id == "" {
		httpError(w, http.StatusBadRequest, "missing "+HeaderEvent+" or "+HeaderDelivery+" header")
		return
	}
	if len(event) > maxHeaderLen || len(id) > maxHeaderLen {
		httpError(w, http.StatusBadRequest, "header value too long")
		return
	}
	log := rc.log.With().Str("github_delivery_id", id).Str("github_event_type", event).Logger()
	sig := r.Header.Get(HeaderSignature)
	if sig == "" {
		log.Warn().Msg("webhook refused: missing " + HeaderSignature)
		httpError(w, http.StatusUnauthorized, "missing signature")
		return
	}

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxWebhookBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			log.Warn().Int64("limit", tooBig.Limit).Msg("webhook refused: body too large")
			httpError(w, http.StatusRequestEntityTooLarge, "body too large")
			return
		}
		httpError(w, http.StatusBadRequest, "failed to read body")
		return
	}
	if !ValidSignature(rc.secret, body, sig) {
		log.Warn().Msg("webhook refused: wrong signature")
		httpError(w, http.StatusUnauthorized, "wrong signature")
		return
	}
	payload, err := extractPayload(r.Header.Get("Content-Type"), body)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}

	isNew, err := rc.inbox.PutDelivery(r.Context(), queue.Delivery{
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
		rc.wake()
	} else {
		log.Debug().Msg("duplicate webhook delivery ignored")
	}
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
