package githubx

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// budgetedRoundTrip sends req within its installation's budget: every try
// waits for a grant (in its class, behind any pause), and a rate-limit
// answer pauses every request of the installation for the window GitHub
// asks, then the refused request (GitHub applied nothing) is tried again.
// Only a request whose body cannot be replayed is answered with the
// refusal. A context that ends while waiting ends the request with its
// error.
func (t *retryTransport) budgetedRoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	class := writeClassOf(ctx)
	c := t.base.costOf(req)
	idempotent := isIdempotent(req.Method)
	replayable := isReplayable(req)
	held := takeReservation(ctx, t.budget, c)
	try := 0
	for attempt := 1; ; attempt++ {
		u, err := t.budget.acquire(ctx, class, c, held)
		if err != nil {
			if held != nil {
				t.budget.unreserve(held)
			}
			closeBody(req)
			return nil, err
		}
		held = nil
		try++
		r := req
		if try > 1 {
			if r, err = replay(req); err != nil {
				t.budget.complete(u)
				return nil, err
			}
		}
		resp, took, cancel, err := t.send(r)
		t.budget.complete(u)
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
		if lim, ok := t.limitOf(resp); ok {
			t.pauseFor(u, resp.StatusCode, lim)
			if !replayable {
				t.observe(req, resp, took, try, "")
				return withCancel(resp, cancel), nil
			}
			t.observe(req, resp, took, try, RetryRateLimit)
			discard(resp)
			cancel()
			attempt-- // the limit is not a failure of the request
			continue
		}
		t.budget.succeeded(u)
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

// limitAnswer is a rate-limit refusal: which kind, and the wait GitHub
// asked for.
type limitAnswer struct {
	secondary bool
	wait      time.Duration
}

// limitOf reads a rate-limit refusal from resp (GitHub's documentation):
// a 403 or 429 whose message says "secondary rate limit", or that carries
// retry-after, and any other 429 are secondary limits; a 403 with
// x-ratelimit-remaining: 0 is the primary limit. The wait is retry-after
// (seconds or a date), else until x-ratelimit-reset (plus a second of
// slack) when nothing remains, else one Minute of the budget.
func (t *retryTransport) limitOf(resp *http.Response) (limitAnswer, bool) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return limitAnswer{}, false
	}
	now := t.budget.clock.Now()
	retryAfter, hasRetryAfter := parseRetryAfter(resp.Header.Get("Retry-After"), now)
	exhausted := resp.Header.Get("X-Ratelimit-Remaining") == "0"
	var lim limitAnswer
	switch {
	case hasRetryAfter || saysSecondary(resp):
		lim.secondary = true
	case exhausted:
	case resp.StatusCode == http.StatusTooManyRequests:
		lim.secondary = true
	default:
		return limitAnswer{}, false // a 403 that is no limit: a refusal
	}
	switch {
	case hasRetryAfter:
		lim.wait = retryAfter
	case exhausted && resp.Header.Get("X-Ratelimit-Reset") != "":
		epoch, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64)
		if err != nil {
			lim.wait = t.budget.lim.Minute
			break
		}
		lim.wait = max(time.Unix(epoch, 0).Sub(now), 0) + time.Second
	default:
		lim.wait = t.budget.lim.Minute
	}
	return lim, true
}

// pauseFor pauses the installation after a refusal of u and reports it.
func (t *retryTransport) pauseFor(u *use, status int, lim limitAnswer) {
	until, strikes := t.budget.pause(u, lim.wait, lim.secondary)
	bo, ok := t.obs.(BudgetObserver)
	if !ok {
		return
	}
	kind := LimitPrimary
	if lim.secondary {
		kind = LimitSecondary
	}
	bo.ObserveLimitPause(LimitPause{Kind: kind, Status: status, Pause: max(until.Sub(t.budget.clock.Now()), 0), Strikes: strikes})
}

// maxRetryAfter caps what a retry-after may ask for.
const maxRetryAfter = 24 * time.Hour

// parseRetryAfter reads a retry-after header: delay seconds or an HTTP
// date, at most maxRetryAfter; ok is false when absent or unreadable.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && secs >= 0 {
		return time.Duration(min(secs, int64(maxRetryAfter/time.Second))) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return min(max(at.Sub(now), 0), maxRetryAfter), true
	}
	return 0, false
}

// maxLimitBody bounds how much of a 403 is read to find GitHub's message.
const maxLimitBody = 64 << 10

// saysSecondary reports whether a 403 or 429's body is GitHub's secondary
// rate limit message ("You have exceeded a secondary rate limit", or the
// older "abuse detection mechanism"). The body read stays readable.
func saysSecondary(resp *http.Response) bool {
	if resp.Body == nil {
		return false
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, maxLimitBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	lower := strings.ToLower(string(head))
	return strings.Contains(lower, "secondary rate limit") || strings.Contains(lower, "abuse detection")
}

// costOf is what req takes from the budget: a read 1 point, a write 5
// points and one content-generating request; a GraphQL query costs as a
// read, a mutation as a write.
func (b basePaths) costOf(req *http.Request) cost {
	if isIdempotent(req.Method) {
		return cost{points: readPoints}
	}
	if req.Method == http.MethodPost && b.graphql != "" && strings.TrimRight(req.URL.Path, "/") == b.graphql {
		if body := peekBody(req); body != nil && !isGraphQLMutation(body) {
			return cost{points: readPoints}
		}
	}
	return cost{points: writePoints, write: true}
}

// peekBody returns a copy of req's body (nil when it cannot be read again).
func peekBody(req *http.Request) []byte {
	if req.GetBody == nil {
		return nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer rc.Close()
	body, err := io.ReadAll(io.LimitReader(rc, 1<<20))
	if err != nil {
		return nil
	}
	return body
}
