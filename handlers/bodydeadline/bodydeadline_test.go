package bodydeadline

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

func TestDeadline(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		policy Policy
		n      int64
		want   time.Duration
	}{
		{"defaults, nothing read", Policy{}, 0, DefaultGrace},
		{"defaults, one second of bytes", Policy{}, DefaultMinRate, DefaultGrace + time.Second},
		{"defaults, 25 MiB", Policy{}, 25 << 20, DefaultGrace + 400*time.Second},
		{"half a second of bytes", Policy{Grace: time.Second, MinRate: 1000}, 500, 1500 * time.Millisecond},
		{"one byte at 3 bytes/s", Policy{Grace: time.Second, MinRate: 3}, 1, time.Second + time.Second/3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.policy.Deadline(start, tt.n).Sub(start); got != tt.want {
				t.Errorf("Deadline(start, %d) = start+%s, want start+%s", tt.n, got, tt.want)
			}
		})
	}
}

// testPolicy is small enough for tests to finish in about a second.
var testPolicy = Policy{Grace: 150 * time.Millisecond, MinRate: 8 << 10}

// cutBound is how soon after Grace a trickle must have been cut: generous
// for a busy machine running -race, and far below the 20 s the trickles of
// these tests (1000 bytes, one every 20 ms) would take to finish.
const cutBound = 2 * time.Second

// readingHandler reads the whole body as a handler would: 408 when it came
// too slowly, then 200 with the byte count.
func readingHandler(read chan<- error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if read != nil {
			read <- err
		}
		switch {
		case errors.Is(err, ErrTooSlow):
			http.Error(w, "request body too slow", http.StatusRequestTimeout)
		case err != nil:
			http.Error(w, err.Error(), http.StatusBadRequest)
		default:
			fmt.Fprintf(w, "%d", len(body))
		}
	})
}

// result is what a raw client saw: a response, or the connection closed.
type result struct {
	status  int
	body    string
	closed  bool
	elapsed time.Duration
}

// send writes a POST's headers on a raw loopback connection, then the body
// in chunks of chunk bytes every interval, and returns the response (or the
// connection closing) once it comes. It gives up after limit.
func send(t *testing.T, addr, path string, header http.Header, size, chunk int, every, limit time.Duration) result {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(limit))
	var head strings.Builder
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", path, addr, size)
	_ = header.Write(&head)
	head.WriteString("\r\n")
	start := time.Now()
	if _, err := io.WriteString(conn, head.String()); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		part := []byte(strings.Repeat("x", chunk))
		for sent := 0; sent < size; sent += chunk {
			if _, err := conn.Write(part[:min(chunk, size-sent)]); err != nil {
				return // the server closed the connection
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("no response and no close within %s", limit)
		}
		return result{closed: true, elapsed: time.Since(start)}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, body: strings.TrimSpace(string(b)), elapsed: time.Since(start)}
}

// A body trickling in at a few bytes a second is cut about Grace after the
// handler started reading it: 408 or a closed connection.
func TestTrickleIsCutWithinGrace(t *testing.T) {
	t.Parallel()
	read := make(chan error, 1)
	srv := httptest.NewServer(testPolicy.Handler(readingHandler(read)))
	defer srv.Close()
	got := send(t, srv.Listener.Addr().String(), "/", nil, 1000, 1, 20*time.Millisecond, 5*time.Second)
	if !got.closed && got.status != http.StatusRequestTimeout {
		t.Fatalf("got %d %q, want 408 or a closed connection", got.status, got.body)
	}
	if bound := testPolicy.Grace + cutBound; got.elapsed > bound {
		t.Errorf("cut after %s, want within %s", got.elapsed, bound)
	}
	err := <-read
	var tooSlow *TooSlowError
	if !errors.As(err, &tooSlow) || !errors.Is(err, ErrTooSlow) || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("handler read error %v, want a *TooSlowError matching ErrTooSlow and the deadline", err)
	}
	if tooSlow.Read >= 1000 || tooSlow.Elapsed < testPolicy.Grace {
		t.Errorf("cut after %d bytes in %s", tooSlow.Read, tooSlow.Elapsed)
	}
}

// A body that keeps above MinRate is read whole even though it takes many
// times Grace.
func TestSteadyBodyAboveMinRateIsRead(t *testing.T) {
	t.Parallel()
	policy := Policy{Grace: 300 * time.Millisecond, MinRate: 8 << 10}
	srv := httptest.NewServer(policy.Handler(readingHandler(nil)))
	defer srv.Close()
	// 24 KiB at about 32 KiB/s: about 0.75 s, where the policy allows
	// 3.3 s, and a hiccup of the sender up to about Grace is tolerated.
	const size = 24 << 10
	got := send(t, srv.Listener.Addr().String(), "/", nil, size, 1<<10, 31*time.Millisecond, 10*time.Second)
	if got.status != http.StatusOK || got.body != fmt.Sprint(size) {
		t.Fatalf("got %+v, want 200 %d", got, size)
	}
	if got.elapsed < 2*policy.Grace {
		t.Errorf("took %s: the test no longer outlasts Grace", got.elapsed)
	}
}

// A handler that refuses a request on its headers never reads the body: the
// server's discarding of the trickling body is bounded by Grace too.
func TestUnreadTrickleIsBounded(t *testing.T) {
	t.Parallel()
	refuse := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	})
	srv := httptest.NewServer(testPolicy.Handler(refuse))
	defer srv.Close()
	got := send(t, srv.Listener.Addr().String(), "/", nil, 1000, 1, 20*time.Millisecond, 5*time.Second)
	if !got.closed && got.status != http.StatusUnauthorized {
		t.Fatalf("got %d %q, want 401 or a closed connection", got.status, got.body)
	}
	if bound := testPolicy.Grace + cutBound; got.elapsed > bound {
		t.Errorf("answered after %s, want within %s", got.elapsed, bound)
	}
}

// Once the body is read to its end the deadline is gone: an operation
// that outlasts it keeps its context and answers normally, and the
// connection is reused.
func TestDeadlineClearedAfterTheBody(t *testing.T) {
	t.Parallel()
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		select {
		case <-r.Context().Done():
			http.Error(w, "context ended after the body was read", http.StatusInternalServerError)
		case <-time.After(3 * testPolicy.Grace): // the operation's own work
			_, _ = io.WriteString(w, "done")
		}
	})
	srv := httptest.NewServer(testPolicy.Handler(slow))
	defer srv.Close()
	for i := range 2 { // the second request reuses the connection
		resp, err := srv.Client().Post(srv.URL, "text/plain", strings.NewReader("hello"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(b) != "done" {
			t.Fatalf("request %d: got %d %q, want 200 done", i, resp.StatusCode, b)
		}
	}
}

// Requests without a body and writers without deadlines pass untouched.
func TestPassesThroughWhatItCannotGuard(t *testing.T) {
	t.Parallel()
	h := testPolicy.Handler(readingHandler(nil))
	for _, req := range []*http.Request{
		httptest.NewRequest(http.MethodGet, "/", nil),
		httptest.NewRequest(http.MethodPost, "/", strings.NewReader("abc")),
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || rec.Body.String() != fmt.Sprint(req.ContentLength) {
			t.Errorf("%s: got %d %q", req.Method, rec.Code, rec.Body.String())
		}
	}
}
