package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// unreadBody fails the test if anything reads it.
type unreadBody struct{ t *testing.T }

func (u unreadBody) Read([]byte) (int, error) {
	u.t.Error("the body was read")
	return 0, io.ErrUnexpectedEOF
}

// A declared Content-Length over MaxBodyBytes is refused 413 before any of
// the body is read, on every operation that takes a body, with a token or
// with the fork-run header; without credentials it is 401, also unread.
func TestOversizeBodyIsRefusedUnread(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a := New(h.svc, h.svc, h.tokens, Options{Now: h.nowFunc()})
	for _, op := range operations() {
		if a.(*API).routes[op].method != http.MethodPost {
			continue
		}
		for _, c := range []struct {
			name, header, value string
			status              int
		}{
			{"token", TokenHeader, secretAll, http.StatusRequestEntityTooLarge},
			{"no credentials", "", "", http.StatusUnauthorized},
			{"fork run", ForkedRunHeader, "12345", http.StatusRequestEntityTooLarge},
		} {
			if c.header == ForkedRunHeader && !a.(*API).routes[op].forkAuth {
				continue
			}
			req := httptest.NewRequest(http.MethodPost, "/v1/"+op, nil)
			req.Body = io.NopCloser(unreadBody{t})
			req.ContentLength = MaxBodyBytes + 1
			if c.header != "" {
				req.Header.Set(c.header, c.value)
			}
			rec := httptest.NewRecorder()
			a.ServeHTTP(rec, req)
			if rec.Code != c.status {
				t.Errorf("%s with %s: %d, want %d", op, c.name, rec.Code, c.status)
			}
		}
	}
}
