package inbox

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"
)

const testSecret = "s3cret"

// newTestReceiver returns a receiver over a fake inbox and a wake counter.
func newTestReceiver(t *testing.T) (*Receiver, *fakeInbox, *atomic.Int32) {
	t.Helper()
	inbox := newFakeInbox()
	var wakes atomic.Int32
	at := time.Date(2026, 7, 23, 1, 2, 3, 0, time.UTC)
	r, err := NewReceiver(testSecret, inbox, func() { wakes.Add(1) }, WithReceiverClock(func() time.Time { return at }))
	if err != nil {
		t.Fatal(err)
	}
	return r, inbox, &wakes
}

// hookRequest builds a delivery; empty header values are left out.
func hookRequest(event, id, signature string, body []byte) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/api/github/hook", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range map[string]string{HeaderEvent: event, HeaderDelivery: id, HeaderSignature: signature} {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	return req
}

func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestNewReceiverRefusesEmptySecret(t *testing.T) {
	t.Parallel()
	if _, err := NewReceiver("", newFakeInbox(), nil); err == nil {
		t.Fatal("NewReceiver accepted an empty secret")
	}
}

func TestReceiverStoresSignedDelivery(t *testing.T) {
	t.Parallel()
	r, inbox, wakes := newTestReceiver(t)
	body := []byte(`{"zen":"Keep it logically awesome."}`)
	rec := serve(r, hookRequest("ping", "d-1", Sign([]byte(testSecret), body), body))
	if rec.Code != http.StatusOK || rec.Body.String() != `{"ok":true}` {
		t.Fatalf("got %d %q, want 200 {\"ok\":true}", rec.Code, rec.Body.String())
	}
	d, ok := inbox.get("d-1")
	if !ok {
		t.Fatal("delivery not stored")
	}
	if d.Event != "ping" || !bytes.Equal(d.Payload, body) || !d.ReceivedAt.Equal(time.Date(2026, 7, 23, 1, 2, 3, 0, time.UTC)) {
		t.Fatalf("stored %+v", d)
	}
	if wakes.Load() != 1 {
		t.Fatalf("wake called %d times, want 1", wakes.Load())
	}
}

func TestReceiverOfficialVector(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	r, err := NewReceiver(vectorSecret, inbox, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := serve(r, hookRequest("push", "vec", vectorSignature, []byte(vectorPayload)))
	if rec.Code != http.StatusOK || inbox.count() != 1 {
		t.Fatalf("got %d with %d stored, want 200 and 1", rec.Code, inbox.count())
	}
}

func TestReceiverRefusesBadSignature(t *testing.T) {
	t.Parallel()
	body := []byte(`{"action":"opened"}`)
	tests := []struct {
		name      string
		signature string
	}{
		{"missing", ""},
		{"wrong secret", Sign([]byte("other"), body)},
		{"other body", Sign([]byte(testSecret), []byte(`{}`))},
		{"malformed", "sha256=nothex"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, inbox, wakes := newTestReceiver(t)
			req := hookRequest("pull_request", "d-1", tt.signature, body)
			if tt.name == "missing" {
				// A SHA-1 signature alone is not accepted either.
				req.Header.Set("X-Hub-Signature", "sha1=0000")
			}
			rec := serve(r, req)
			if rec.Code != http.StatusUnauthorized {
				t.Fatalf("got %d, want 401", rec.Code)
			}
			if inbox.count() != 0 || wakes.Load() != 0 {
				t.Fatalf("stored %d, woke %d; want nothing", inbox.count(), wakes.Load())
			}
		})
	}
}

func TestReceiverDeduplicatesDeliveries(t *testing.T) {
	t.Parallel()
	r, inbox, wakes := newTestReceiver(t)
	body := []byte(`{"n":1}`)
	for i := range 2 {
		rec := serve(r, hookRequest("push", "same-id", Sign([]byte(testSecret), body), body))
		if rec.Code != http.StatusOK {
			t.Fatalf("attempt %d: got %d, want 200", i, rec.Code)
		}
	}
	// A redelivery carries the same id even if the body were different.
	other := []byte(`{"n":2}`)
	if rec := serve(r, hookRequest("push", "same-id", Sign([]byte(testSecret), other), other)); rec.Code != http.StatusOK {
		t.Fatalf("got %d, want 200", rec.Code)
	}
	d, _ := inbox.get("same-id")
	if inbox.count() != 1 || !bytes.Equal(d.Payload, body) {
		t.Fatalf("stored %d deliveries with payload %s; want 1 with the first", inbox.count(), d.Payload)
	}
	if wakes.Load() != 1 {
		t.Fatalf("wake called %d times, want 1", wakes.Load())
	}
}

func TestReceiverBodyLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		size int
		want int
	}{
		{"at the limit", MaxBodyBytes, http.StatusOK},
		{"one byte over", MaxBodyBytes + 1, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, inbox, _ := newTestReceiver(t)
			body := bytes.Repeat([]byte("a"), tt.size)
			rec := serve(r, hookRequest("push", "big", Sign([]byte(testSecret), body), body))
			if rec.Code != tt.want {
				t.Fatalf("got %d, want %d", rec.Code, tt.want)
			}
			if stored := inbox.count() == 1; stored != (tt.want == http.StatusOK) {
				t.Fatalf("stored = %v", stored)
			}
		})
	}
}

func TestReceiverRequiresHeaders(t *testing.T) {
	t.Parallel()
	body := []byte(`{}`)
	sig := Sign([]byte(testSecret), body)
	tests := []struct {
		name      string
		event, id string
	}{
		{"no event", "", "d-1"},
		{"no delivery id", "push", ""},
		{"neither", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, inbox, _ := newTestReceiver(t)
			if rec := serve(r, hookRequest(tt.event, tt.id, sig, body)); rec.Code != http.StatusBadRequest {
				t.Fatalf("got %d, want 400", rec.Code)
			}
			if inbox.count() != 0 {
				t.Fatal("stored a delivery without headers")
			}
		})
	}
}

func TestReceiverStoreFailureIs500(t *testing.T) {
	t.Parallel()
	r, inbox, wakes := newTestReceiver(t)
	inbox.putErr = errors.New("disk full")
	body := []byte(`{}`)
	if rec := serve(r, hookRequest("push", "d-1", Sign([]byte(testSecret), body), body)); rec.Code != http.StatusInternalServerError {
		t.Fatalf("got %d, want 500", rec.Code)
	}
	if wakes.Load() != 0 {
		t.Fatal("woke the processor for a delivery that was not stored")
	}
}

func TestReceiverRefusesOtherMethods(t *testing.T) {
	t.Parallel()
	r, _, _ := newTestReceiver(t)
	req := httptest.NewRequest(http.MethodGet, "/api/github/hook", nil)
	if rec := serve(r, req); rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("got %d, want 405", rec.Code)
	}
}

func TestReceiverFormEncodedPayload(t *testing.T) {
	t.Parallel()
	r, inbox, _ := newTestReceiver(t)
	payload := `{"zen":"form"}`
	body := []byte(url.Values{"payload": {payload}}.Encode())
	req := hookRequest("ping", "d-form", Sign([]byte(testSecret), body), body)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if rec := serve(r, req); rec.Code != http.StatusOK {
		t.Fatalf("got %d, want 200", rec.Code)
	}
	if d, _ := inbox.get("d-form"); string(d.Payload) != payload {
		t.Fatalf("stored payload %q, want %q", d.Payload, payload)
	}
}
