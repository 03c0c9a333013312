package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// timestampLayout is the wire format of every timestamp: RFC 3339, UTC,
// milliseconds (SPEC §3), e.g. 2026-07-23T01:32:50.000Z.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// timestamp formats t for the wire.
func timestamp(t time.Time) string { return t.UTC().Format(timestampLayout) }

// optTimestamp formats t, or returns nil (JSON null) for the zero time.
func optTimestamp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := timestamp(t)
	return &s
}

// emptyObject is the body of every successful write: exactly {}.
type emptyObject struct{}

// writeJSON answers 200 with v encoded as JSON. Encoding happens before
// anything is written, so a failure is still a clean 500.
func writeJSON(w http.ResponseWriter, v any) error {
	body, err := encodeJSON(v)
	if err != nil {
		return err
	}
	writeBody(w, body)
	return nil
}

// encodeJSON is the JSON of a response body.
func encodeJSON(v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("failed to encode response: %w", err)
	}
	return body, nil
}

// writeBody answers 200 with a JSON body encoded by encodeJSON.
func writeBody(w http.ResponseWriter, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// writeEmpty answers a successful write: 200 with {}.
func writeEmpty(w http.ResponseWriter) error { return writeJSON(w, emptyObject{}) }
