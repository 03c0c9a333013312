package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mergequeue/mq/queue"
)

// leaseWriteGuard is the GitHub client middleware that keeps a queue's
// former decision-maker from writing to GitHub: a request that may write
// (any method but GET and HEAD), made under a context carrying a
// queue.Fence, is not sent unless the lease is held for at least
// minWriteWindow more, and it is cut off when the lease may pass on, so
// that it ends within the lease. It runs on every try of a call.
// (Its type is githubx's client middleware's.)
func leaseWriteGuard(now func() time.Time) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			f, fenced := queue.FenceOf(req.Context())
			if !fenced || req.Method == http.MethodGet || req.Method == http.MethodHead {
				return next.RoundTrip(req)
			}
			until := f.HeldUntil()
			if until.Sub(now()) < minWriteWindow {
				return nil, fmt.Errorf("refused to send %s %s for queue %d: %w", req.Method, req.URL.Path, f.QueueID(), queue.ErrLeaseLost)
			}
			ctx, cancel := context.WithDeadline(req.Context(), until)
			resp, err := next.RoundTrip(req.WithContext(ctx))
			if err != nil {
				cancel()
				return nil, err
			}
			resp.Body = cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
			return resp, nil
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// cancelOnClose ends a request's context once its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
