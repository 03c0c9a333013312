package requestid

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// serve runs one request with incoming header value in (none when "") and
// returns the response's id and the log lines the handler wrote.
func serve(t *testing.T, in string) (string, []map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	base := zerolog.New(&buf)
	h := Middleware(base, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		zerolog.Ctx(r.Context()).Info().Msg("handled")
		if got := FromContext(r.Context()); got != w.Header().Get(Header) {
			t.Errorf("context id %q, response id %q", got, w.Header().Get(Header))
		}
	}))
	req := httptest.NewRequest(http.MethodGet, "/x", nil)
	if in != "" {
		req.Header.Set(Header, in)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return rec.Header().Get(Header), lines
}

func TestKeepsASaneIncomingID(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"3f1c2b8e-1a2b-4c3d-9e8f-0a1b2c3d4e5f", "abc", "lb:1.2_x", strings.Repeat("a", MaxLen)} {
		id, lines := serve(t, in)
		if id != in {
			t.Errorf("incoming %q: response id %q", in, id)
		}
		if len(lines) != 1 || lines[0][LogKey] != in {
			t.Errorf("incoming %q: log lines %v", in, lines)
		}
	}
}

func TestReplacesAMissingOrUnsafeID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, in := range []string{"", strings.Repeat("a", MaxLen+1), "a b", "x\ny", `"quoted"`, "é", "a/b"} {
		id, lines := serve(t, in)
		if id == in || !Valid(id) || len(id) != 32 {
			t.Errorf("incoming %q: response id %q, want a fresh one", in, id)
		}
		if seen[id] {
			t.Errorf("id %q generated twice", id)
		}
		seen[id] = true
		if len(lines) != 1 || lines[0][LogKey] != id {
			t.Errorf("incoming %q: log lines %v, want request_id %q", in, lines, id)
		}
	}
}

func TestPrefersTheContextLogger(t *testing.T) {
	t.Parallel()
	var ctxBuf, baseBuf bytes.Buffer
	ctxLog := zerolog.New(&ctxBuf).With().Str("from", "context").Logger()
	h := Middleware(zerolog.New(&baseBuf), http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		zerolog.Ctx(r.Context()).Info().Msg("handled")
	}))
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set(Header, "req-1")
	h.ServeHTTP(httptest.NewRecorder(), req.WithContext(ctxLog.WithContext(req.Context())))
	if baseBuf.Len() != 0 || !strings.Contains(ctxBuf.String(), `"from":"context"`) || !strings.Contains(ctxBuf.String(), `"request_id":"req-1"`) {
		t.Errorf("context log %q, base log %q", ctxBuf.String(), baseBuf.String())
	}
}

func TestAnnotate(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	own := zerolog.New(&buf)
	h := Middleware(zerolog.Nop(), http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		l := Annotate(r.Context(), own.With()).Logger()
		l.Info().Msg("own logger")
	}))
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set(Header, "req-2")
	h.ServeHTTP(httptest.NewRecorder(), req)
	if !strings.Contains(buf.String(), `"request_id":"req-2"`) {
		t.Errorf("log %q lacks the request id", buf.String())
	}
	buf.Reset()
	l := Annotate(t.Context(), own.With()).Logger()
	l.Info().Msg("outside a request")
	if strings.Contains(buf.String(), LogKey) {
		t.Errorf("log outside a request %q carries a request id", buf.String())
	}
}
