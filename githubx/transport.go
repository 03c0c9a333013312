package githubx

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/palantir/go-githubapp/githubapp"
)

// RetryPolicy bounds the retry middleware. Zero fields take the values of
// DefaultRetryPolicy.
type RetryPolicy struct {
	// MaxAttempts is the number of tries of an idempotent request (GET,
	// HEAD, OPTIONS) that fails with a 5xx or a network error.
	MaxAttempts int
	// BaseDelay is the backoff before the second try; it doubles per try up
	// to MaxDelay, and each sleep is jittered into [d/2, d).
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxRateLimitWait is the longest the middleware waits for a rate limit
	// to reset before retrying once; longer limits are returned at once.
	// Only clients without a budget (the App's own) use it: an
	// installation's rate limits pause the installation instead (Budget).
	MaxRateLimitWait time.Duration
	// MinWriteInterval spaces the starts of mutating requests made through
	// one client (one installation) at least this far apart; 0 disables.
	MinWriteInterval time.Duration

	// Sleep waits for d or until ctx ends (tests inject a recorder).
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock used to read x-ratelimit-reset.
	Now func() time.Time
	// Jitter returns a number in [0, 1).
	Jitter func() float64
}

// DefaultRetryPolicy is 3 tries, 250 ms doubling to at most 2 s, rate-limit
// waits up to 60 s, no write spacing.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxAttempts:      3,
		BaseDelay:        250 * time.Millisecond,
		MaxDelay:         2 * time.Second,
		MaxRateLimitWait: 60 * time.Second,
		Sleep:            sleepCtx,
		Now:              time.Now,
		Jitter:           rand.Float64,
	}
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetryPolicy()
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = d.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = d.MaxDelay
	}
	if p.MaxRateLimitWait <= 0 {
		p.MaxRateLimitWait = d.MaxRateLimitWait
	}
	if p.Sleep == nil {
		p.Sleep = d.Sleep
	}
	if p.Now == nil {
		p.Now = d.Now
	}
	if p.Jitter == nil {
		p.Jitter = d.Jitter
	}
	return p
}

// backoff is the jittered sleep before try number attempt+1.
func (p RetryPolicy) backoff(attempt int) time.Duration {
	d := p.BaseDelay
	for i := 1; i < attempt && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	return d/2 + time.Duration(p.Jitter()*float64(d/2))
}

// RetryMiddleware returns client middleware that retries idempotent
// requests on 5xx and network errors, waits out short rate limits (403 or
// 429 with Retry-After or x-ratelimit-remaining: 0) and retries any request
// once after it, and never retries a write that failed with a 5xx or a
// network error (its outcome is unknown; the caller must re-read state).
// Each client built with it (one per installation) gets its own write
// spacing. (A Client's installation clients do more: see Budget.)
func RetryMiddleware(p RetryPolicy) githubapp.ClientMiddleware {
	return retryMiddleware(p, nil, basePaths{}, nil, 0)
}

// retryMiddleware is RetryMiddleware reporting every attempt to obs (nil:
// none), its path templated relative to base, each try bounded by timeout
// (0: none). With a budget (one installation's), requests wait for it and
// rate limits pause the installation instead (budgetedRoundTrip).
func retryMiddleware(p RetryPolicy, obs Observer, base basePaths, budget *scheduler, timeout time.Duration) githubapp.ClientMiddleware {
	p = p.withDefaults()
	return func(next http.RoundTripper) http.RoundTripper {
		return &retryTransport{next: next, p: p, obs: obs, base: base, budget: budget, timeout: timeout}
	}
}

type retryTransport struct {
	next    http.RoundTripper
	p       RetryPolicy
	obs     Observer
	base    basePaths
	budget  *scheduler    // nil: no budget (the App's own client)
	timeout time.Duration // bounds each try; 0: none

	mu        sync.Mutex
	nextWrite time.Time
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if !isIdempotent(req.Method) {
		if err := t.spaceWrite(ctx); err != nil {
			closeBody(req)
			return nil, err
		}
	}
	if t.budget != nil {
		return t.budgetedRoundTrip(req)
	}
	idempotent := isIdempotent(req.Method)
	replayable := isReplayable(req)
	waitedForLimit := false
	for attempt := 1; ; attempt++ {
		r := req
		if attempt > 1 || waitedForLimit {
			var err error
			if r, err = replay(req); err != nil {
				return nil, err
			}
		}
		try := attempt
		if waitedForLimit {
			try++
		}
		resp, took, cancel, err := t.send(r)
		if err != nil {
			cancel()
			if idempotent && replayable && attempt < t.p.MaxAttempts && retryableError(ctx, err) {
				t.observe(req, nil, took, try, RetryNetworkError)
				if serr := t.p.Sleep(ctx, t.p.backoff(attempt)); serr != nil {
					return nil, err
				}
				continue
			}
			t.observe(req, nil, took, try, "")
			return nil, err
		}
		if isRateLimited(resp) {
			wait, known := t.rateLimitWait(resp)
			if waitedForLimit || !known || wait > t.p.MaxRateLimitWait || !replayable {
				t.observe(req, resp, took, try, "")
				return withCancel(resp, cancel), nil
			}
			t.observe(req, resp, took, try, RetryRateLimit)
			discard(resp)
			cancel()
			if err := t.p.Sleep(ctx, wait); err != nil {
				return nil, err
			}
			waitedForLimit = true
			attempt-- // the limit is not a failure of the request
			continue
		}
		if resp.StatusCode >= 500 && idempotent && replayable && attempt < t.p.MaxAttempts {
			t.observe(req, resp, took, try, RetryServerError)
			discard(resp)
			cancel()
			if err := t.p.Sleep(ctx, t.p.backoff(attempt)); err != nil {
				return nil, err
			}
			continue
		}
		t.observe(req, resp, took, try, "")
		return withCancel(resp, cancel), nil
	}
}

// send makes one try, bounded by the transport's timeout from here to the
// end of the response body: the returned cancel ends that bound and must
// be called once the body is done with (withCancel hands it to the body).
func (t *retryTransport) send(r *http.Request) (*http.Response, time.Duration, context.CancelFunc, error) {
	ctx, cancel := context.WithCancel(r.Context())
	if t.timeout > 0 {
		ctx, cancel = context.WithTimeout(r.Context(), t.timeout)
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(r.WithContext(ctx))
	return resp, time.Since(start), cancel, err
}

// observe reports one try to the observer, if any.
func (t *retryTransport) observe(req *http.Request, resp *http.Response, took time.Duration, try int, retry string) {
	if t.obs == nil {
		return
	}
	c := Call{Method: req.Method, Endpoint: t.base.endpointOf(req.URL), Duration: took, Attempt: try, Retry: retry,
		RateLimit: rateLimitOf(resp)}
	if resp != nil {
		c.Status = resp.StatusCode
	}
	t.obs.ObserveGitHubCall(c)
}

// spaceWrite reserves the next write slot and waits for it.
func (t *retryTransport) spaceWrite(ctx context.Context) error {
	if t.p.MinWriteInterval <= 0 {
		return nil
	}
	now := t.p.Now()
	t.mu.Lock()
	slot := t.nextWrite
	if slot.Before(now) {
		slot = now
	}
	t.nextWrite = slot.Add(t.p.MinWriteInterval)
	t.mu.Unlock()
	if d := slot.Sub(now); d > 0 {
		return t.p.Sleep(ctx, d)
	}
	return nil
}

// rateLimitWait reads how long GitHub asked us to wait (R3): Retry-After
// seconds, else x-ratelimit-reset (epoch seconds) plus one second of slack.
func (t *retryTransport) rateLimitWait(resp *http.Response) (time.Duration, bool) {
	if v := resp.Header.Get("Retry-After"); v != "" {
		if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 {
			return time.Duration(secs) * time.Second, true
		}
		if at, err := http.ParseTime(v); err == nil {
			return max(at.Sub(t.p.Now()), 0), true
		}
		return 0, false
	}
	if v := resp.Header.Get("X-Ratelimit-Reset"); v != "" {
		if epoch, err := strconv.ParseInt(v, 10, 64); err == nil {
			return max(time.Unix(epoch, 0).Sub(t.p.Now()), 0) + time.Second, true
		}
	}
	return 0, false
}

// isRateLimited: a 403 or 429 carrying Retry-After or
// x-ratelimit-remaining: 0 (R3, R7).
func isRateLimited(resp *http.Response) bool {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return false
	}
	return resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-Ratelimit-Remaining") == "0"
}

func isIdempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return false
}

// retryableError: network failures, but not a cancelled context nor an
// installation token GitHub refused with a 4xx.
func retryableError(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var he *ghinstallation.HTTPError
	if errors.As(err, &he) && he.Response != nil && he.Response.StatusCode < 500 {
		return false
	}
	return true
}

// isReplayable reports whether req's body can be sent again.
func isReplayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// replay clones req with a fresh body for another try.
func replay(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	return r, nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// discard drains a little of a response we will not return, so the
// connection can be reused.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

// withCancel makes closing resp's body call cancel (the bound of its try).
func withCancel(resp *http.Response, cancel context.CancelFunc) *http.Response {
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp
}

// cancelBody is a response body whose Close also ends its try's context.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
