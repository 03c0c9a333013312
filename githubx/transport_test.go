package githubx

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
)

// step is one scripted answer of scriptTransport: a status with headers,
// or an error.
type step struct {
	status  int
	headers map[string]string
	err     error
}

// scriptTransport answers requests from a script and records the bodies it
// was sent.
type scriptTransport struct {
	mu     sync.Mutex
	script []step
	bodies []string
}

func (s *scriptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body := ""
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		_ = req.Body.Close()
		body = string(b)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bodies = append(s.bodies, body)
	if len(s.script) == 0 {
		return nil, errors.New("script exhausted")
	}
	st := s.script[0]
	s.script = s.script[1:]
	if st.err != nil {
		return nil, st.err
	}
	resp := &http.Response{StatusCode: st.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}")), Request: req}
	for k, v := range st.headers {
		resp.Header.Set(k, v)
	}
	return resp, nil
}

func TestRetryMiddleware(t *testing.T) {
	t.Parallel()
	reset := func(d time.Duration) string { return strconv.FormatInt(testNow.Add(d).Unix(), 10) }
	netErr := errors.New("connection reset by peer")
	tokenRefused := &ghinstallation.HTTPError{Message: "no token", Response: &http.Response{StatusCode: 404}}
	tests := []struct {
		name       string
		method     string
		script     []step
		wantStatus int // 0: an error
		wantSent   int
		wantSleeps []time.Duration
	}{
		{"GET 500 then 200", "GET", []step{{status: 500}, {status: 200}}, 200, 2, []time.Duration{187500 * time.Microsecond}},
		{"GET gives up after 3 tries", "GET", []step{{status: 502}, {status: 503}, {status: 504}}, 504, 3,
			[]time.Duration{187500 * time.Microsecond, 375 * time.Millisecond}},
		{"GET network error retried", "GET", []step{{err: netErr}, {status: 200}}, 200, 2, []time.Duration{187500 * time.Microsecond}},
		{"GET refused token not retried", "GET", []step{{err: tokenRefused}}, 0, 1, nil},
		{"PUT 500 not retried", "PUT", []step{{status: 500}}, 500, 1, nil},
		{"POST network error not retried", "POST", []step{{err: netErr}}, 0, 1, nil},
		{"POST 429 Retry-After retried once", "POST", []step{{status: 429, headers: map[string]string{"Retry-After": "7"}}, {status: 201}}, 201, 2,
			[]time.Duration{7 * time.Second}},
		{"PATCH 403 primary limit waits for reset", "PATCH",
			[]step{{status: 403, headers: map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": reset(10 * time.Second)}}, {status: 200}}, 200, 2,
			[]time.Duration{11 * time.Second}},
		{"rate limit beyond the cap is returned", "GET", []step{{status: 429, headers: map[string]string{"Retry-After": "61"}}}, 429, 1, nil},
		{"rate limit twice is returned", "POST",
			[]step{{status: 429, headers: map[string]string{"Retry-After": "1"}}, {status: 429, headers: map[string]string{"Retry-After": "1"}}}, 429, 2,
			[]time.Duration{time.Second}},
		{"403 without limit headers is returned", "GET", []step{{status: 403}}, 403, 1, nil},
		{"GET rate limit then 5xx then 200", "GET",
			[]step{{status: 429, headers: map[string]string{"Retry-After": "2"}}, {status: 500}, {status: 200}}, 200, 3,
			[]time.Duration{2 * time.Second, 187500 * time.Microsecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sl := &sleeps{}
			st := &scriptTransport{script: tt.script}
			rt := RetryMiddleware(RetryPolicy{Sleep: sl.sleep, Now: func() time.Time { return testNow }, Jitter: func() float64 { return 0.5 }})(st)
			req, _ := http.NewRequestWithContext(t.Context(), tt.method, "http://api.test/x", strings.NewReader(`{"a":1}`))
			resp, err := rt.RoundTrip(req)
			if tt.wantStatus == 0 {
				if err == nil {
					t.Fatalf("RoundTrip() = %d, want an error", resp.StatusCode)
				}
			} else if err != nil || resp.StatusCode != tt.wantStatus {
				t.Fatalf("RoundTrip() = %v, %v; want %d", resp, err, tt.wantStatus)
			}
			mustEqual(t, "sent", len(st.bodies), tt.wantSent)
			for i, b := range st.bodies {
				mustEqual(t, "body of try "+strconv.Itoa(i+1), b, `{"a":1}`)
			}
			mustEqual(t, "sleeps", sl.all(), tt.wantSleeps)
		})
	}
}

func TestRetryMiddlewareUnreplayableBody(t *testing.T) {
	t.Parallel()
	sl := &sleeps{}
	st := &scriptTransport{script: []step{{status: 429, headers: map[string]string{"Retry-After": "1"}}}}
	rt := RetryMiddleware(RetryPolicy{Sleep: sl.sleep})(st)
	req, _ := http.NewRequestWithContext(t.Context(), "POST", "http://api.test/x", io.NopCloser(strings.NewReader("x")))
	req.GetBody = nil
	resp, err := rt.RoundTrip(req)
	if err != nil || resp.StatusCode != 429 {
		t.Fatalf("RoundTrip() = %v, %v; want the 429", resp, err)
	}
	mustEqual(t, "sleeps", len(sl.all()), 0)
}

func TestRetryMiddlewareStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	st := &scriptTransport{script: []step{{status: 500}, {status: 200}}}
	rt := RetryMiddleware(RetryPolicy{Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return ctx.Err()
	}})(st)
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://api.test/x", nil)
	if _, err := rt.RoundTrip(req); !errors.Is(err, context.Canceled) {
		t.Fatalf("RoundTrip() error = %v, want context.Canceled", err)
	}
	mustEqual(t, "sent", len(st.bodies), 1)
}

func TestRetryMiddlewareSpacesWrites(t *testing.T) {
	t.Parallel()
	sl := &sleeps{}
	st := &scriptTransport{script: []step{{status: 201}, {status: 201}, {status: 200}, {status: 201}}}
	rt := RetryMiddleware(RetryPolicy{Sleep: sl.sleep, Now: func() time.Time { return testNow }, MinWriteInterval: time.Second})(st)
	for _, method := range []string{"POST", "PATCH", "GET", "DELETE"} {
		req, _ := http.NewRequestWithContext(t.Context(), method, "http://api.test/x", nil)
		if _, err := rt.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	}
	// The clock stands still, so each write waits one more interval; reads
	// are not spaced.
	mustEqual(t, "sleeps", sl.all(), []time.Duration{time.Second, 2 * time.Second})
}

func TestBackoffIsBounded(t *testing.T) {
	t.Parallel()
	for _, jitter := range []float64{0, 0.999} {
		p := RetryPolicy{Jitter: func() float64 { return jitter }}.withDefaults()
		for attempt := 1; attempt <= 10; attempt++ {
			d := p.backoff(attempt)
			if d < p.BaseDelay/2 || d > p.MaxDelay {
				t.Errorf("backoff(%d) with jitter %v = %v, outside [%v, %v]", attempt, jitter, d, p.BaseDelay/2, p.MaxDelay)
			}
		}
	}
}

func TestSleepCtx(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := sleepCtx(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("sleepCtx() = %v, want context.Canceled", err)
	}
	if err := sleepCtx(t.Context(), 0); err != nil {
		t.Fatalf("sleepCtx(0) = %v", err)
	}
}
