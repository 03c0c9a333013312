package api

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/handlers/api/apitoken/apitokentest"
)

func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		r := h.do(method, "/v1/getQueue", secretAll, strings.NewReader(body()))
		wantError(t, r, http.StatusMethodNotAllowed, "not allowed")
		if allow := r.header.Get("Allow"); allow != http.MethodPost {
			t.Errorf("%s: Allow = %q, want POST", method, allow)
		}
	}
	if n := len(h.svc.calls().getKeys); n != 0 {
		t.Errorf("service called %d times", n)
	}
}

func TestUnknownOperation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, path := range []string{"/v1/", "/v1/nope", "/v1/getQueue/extra"} {
		wantError(t, h.do(http.MethodPost, path, secretAll, strings.NewReader(body())), http.StatusNotFound, "unknown operation")
	}
}

// largeBody is a syntactically valid request of exactly n bytes.
func largeBody(n int) []byte {
	prefix := []byte(body(`"pad":"`))
	prefix = prefix[:len(prefix)-1] // drop the closing brace
	b := make([]byte, 0, n)
	b = append(b, prefix...)
	b = append(b, bytes.Repeat([]byte("x"), n-len(prefix)-2)...)
	return append(b, '"', '}')
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		size    int
		chunked bool // hide the length so the reader limit, not Content-Length, decides
		status  int
	}{
		{"at the limit", MaxBodyBytes, false, http.StatusOK},
		{"one byte over", MaxBodyBytes + 1, false, http.StatusRequestEntityTooLarge},
		{"one byte over, chunked", MaxBodyBytes + 1, true, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			b := largeBody(tt.size)
			if len(b) != tt.size {
				t.Fatalf("body is %d bytes, want %d", len(b), tt.size)
			}
			var rd io.Reader = bytes.NewReader(b)
			if tt.chunked {
				rd = io.MultiReader(rd) // unknown length: sent chunked
			}
			r := h.do(http.MethodPost, "/v1/createQueue", secretAll, rd)
			if tt.status == http.StatusOK {
				wantEmptyObject(t, r)
				return
			}
			wantError(t, r, tt.status, "larger than")
			if n := len(h.svc.calls().creates); n != 0 {
				t.Errorf("service called %d times", n)
			}
		})
	}
}

func TestPanicIsGeneric500(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.svc.configure(func(f *fakeService) { f.panicMsg = "secret internal state" })
	r := h.post("getQueue", body())
	wantError(t, r, http.StatusInternalServerError)
	if strings.TrimSpace(r.body) != internalErrorMessage {
		t.Errorf("body = %q", r.body)
	}
	if !strings.Contains(h.logs.String(), "secret internal state") {
		t.Error("panic not logged")
	}
}

func TestMountedBehindStripPrefix(t *testing.T) {
	t.Parallel()
	tokens := apitokentest.NewStore()
	tokens.Add("s", tokensFixture())
	svc := &fakeService{}
	srv := httptest.NewServer(http.StripPrefix("/v1", New(svc, svc, tokens, Options{Now: func() time.Time { return testNow }})))
	defer srv.Close()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/createQueue", strings.NewReader(body()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(TokenHeader, "s")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d", resp.StatusCode)
	}
}

func TestOtherConfiguredHost(t *testing.T) {
	t.Parallel()
	tokens := apitokentest.NewStore()
	tokens.Add("s", tokensFixture())
	svc := &fakeService{}
	handler := New(svc, svc, tokens, Options{Host: "ghe.example.com", Now: func() time.Time { return testNow }})
	send := func(host string) int {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/v1/createQueue",
			strings.NewReader(`{"repo":{"host":"`+host+`","owner":"o","name":"r"},"targetBranch":"main"}`))
		req.Header.Set(TokenHeader, "s")
		handler.ServeHTTP(rec, req)
		return rec.Code
	}
	if got := send("github.com"); got != http.StatusNotFound {
		t.Errorf("github.com: %d, want 404", got)
	}
	if got := send("GHE.example.com"); got != http.StatusOK {
		t.Errorf("configured host: %d, want 200", got)
	}
	if keys := svc.calls().createKeys; len(keys) != 1 || keys[0].Repo.Host != "ghe.example.com" {
		t.Errorf("keys = %v", keys)
	}
}

func TestTimestampFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"whole second", time.Date(2026, 7, 23, 1, 32, 50, 0, time.UTC), "2026-07-23T01:32:50.000Z"},
		{"truncates to ms", time.Date(2026, 7, 23, 1, 32, 50, 999999999, time.UTC), "2026-07-23T01:32:50.999Z"},
		{"converted to UTC", time.Date(2026, 7, 23, 3, 32, 50, 5e6, time.FixedZone("CEST", 2*3600)), "2026-07-23T01:32:50.005Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := timestamp(tt.in); got != tt.want {
				t.Errorf("timestamp = %s, want %s", got, tt.want)
			}
		})
	}
	if optTimestamp(time.Time{}) != nil {
		t.Error("optTimestamp(zero) is not nil")
	}
}

func TestOneLine(t *testing.T) {
	t.Parallel()
	if got := oneLine("a\nb\r\nc\td"); got != "a b  c d" {
		t.Errorf("oneLine = %q", got)
	}
}
