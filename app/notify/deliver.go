package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Kind is a target's kind.
type Kind string

const (
	// Webhook targets receive signed JSON events.
	Webhook Kind = "webhook"
	// Slack targets receive one-line summaries (incoming webhook).
	Slack Kind = "slack"
)

// Target is one configured endpoint.
type Target struct {
	URL string
	// Secret signs webhook deliveries (Standard Webhooks): "whsec_" followed
	// by base64, or any other string used as the key bytes. Empty: unsigned.
	Secret string
	Kind   Kind
}

// key identifies the target's cursor: its kind and the SHA-256 of its URL
// (TargetKey). The signing secret may rotate, the stream stays the same.
func (t Target) key() string { return TargetKey(t.Kind, t.URL) }

// TargetKey is the stable, non-secret name of a target's cursor: kind +
// " sha256:" + the hex SHA-256 of its URL. A chat webhook's URL is its
// credential, so the URL itself is never stored; its hash tells targets
// apart without revealing it. Migration 0016 of the SQLite store rewrote
// the cursors of earlier versions (kind + " " + URL) to this form.
func TargetKey(kind Kind, url string) string {
	sum := sha256.Sum256([]byte(url))
	return string(kind) + " sha256:" + hex.EncodeToString(sum[:])
}

// deliveryError is a failed delivery; Permanent ones are not retried.
type deliveryError struct {
	Permanent bool
	Err       error
}

func (e *deliveryError) Error() string { return e.Err.Error() }

// send POSTs one message to the target.
func send(ctx context.Context, client *http.Client, t Target, m Message, now time.Time) error {
	var body []byte
	var err error
	if t.Kind == Slack {
		// Links in the line are shown, never unfurled (fetched by Slack).
		body, err = json.Marshal(map[string]any{"text": m.Summary(), "unfurl_links": false, "unfurl_media": false})
	} else {
		body, err = json.Marshal(m)
	}
	if err != nil {
		return &deliveryError{Permanent: true, Err: fmt.Errorf("failed to encode %s: %w", m.ID, err)}
	}
	// Errors name the target by RedactURL only: its URL may hold a secret.
	target := RedactURL(t.URL)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		return &deliveryError{Permanent: true, Err: fmt.Errorf("failed to build the request to %s: %w", target, redactErr(err))}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "mergequeue-notify")
	if t.Kind != Slack {
		ts := strconv.FormatInt(now.Unix(), 10)
		req.Header.Set("webhook-id", m.ID)
		req.Header.Set("webhook-timestamp", ts)
		if t.Secret != "" {
			req.Header.Set("webhook-signature", Sign(t.Secret, m.ID, ts, body))
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return &deliveryError{Err: fmt.Errorf("failed to deliver %s to %s: %w", m.ID, target, redactErr(err))}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return nil
	case code >= 500, code == http.StatusRequestTimeout, code == http.StatusTooManyRequests:
		return &deliveryError{Err: fmt.Errorf("%s answered %s to %s", target, resp.Status, m.ID)}
	default:
		return &deliveryError{Permanent: true, Err: fmt.Errorf("%s refused %s: %s", target, m.ID, resp.Status)}
	}
}

// Sign computes the Standard Webhooks signature header value of a delivery:
// "v1," + base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)).
func Sign(secret, id, timestamp string, body []byte) string {
	key := []byte(secret)
	if rest, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if decoded, err := base64.StdEncoding.DecodeString(rest); err == nil {
			key = decoded
		}
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}
