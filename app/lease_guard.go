package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mergequeue/mq/queue"
)

// writeHold is a hold on some work that ends (a queue's lease, a role).
type writeHold interface {
	// HeldUntil is when the hold may pass on at the earliest; zero once
	// lost.
	HeldUntil() time.Time
}

type holdKey struct{}

// withHold returns ctx carrying h: GitHub writes made under it need h
// (leaseWriteGuard), as they need a queue.Fence.
func withHold(ctx context.Context, h writeHold) context.Context {
	return context.WithValue(ctx, holdKey{}, h)
}

// holdOf returns the hold ctx's GitHub writes need: its queue.Fence, or
// the hold of withHold.
func holdOf(ctx context.Context) (writeHold, bool) {
	if f, ok := queue.FenceOf(ctx); ok {
		return f, true
	}
	h, ok := ctx.Value(holdKey{}).(writeHold)
	return h, ok && h != nil
}

// writeWindow says until when a write made under ctx may run: held is
// false when ctx carries no hold (the write is not held back);
// queue.ErrLeaseLost when the hold lasts less than minWriteWindow more.
func writeWindow(ctx context.Context, now func() time.Time) (until time.Time, held bool, err error) {
	h, held := holdOf(ctx)
	if !held {
		return time.Time{}, false, nil
	}
	until = h.HeldUntil()
	if until.Sub(now()) < minWriteWindow {
		return time.Time{}, true, queue.ErrLeaseLost
	}
	return until, true, nil
}

// leaseWriteGuard is the GitHub client middleware that keeps a queue's
// former decision-maker (or a role's former holder) from writing to
// GitHub: a request that may write (any method but GET and HEAD), made
// under a context carrying a queue.Fence or a role's hold, is not sent
// unless the hold lasts at least minWriteWindow more, and it is cut off
// when the hold may pass on, so that it ends within it. It runs on every
// try of a call.
// (Its type is githubx's client middleware's.)
func leaseWriteGuard(now func() time.Time) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.Method == http.MethodGet || req.Method == http.MethodHead {
				return next.RoundTrip(req)
			}
			until, held, err := writeWindow(req.Context(), now)
			if err != nil {
				return nil, fmt.Errorf("refused to send %s %s: %w", req.Method, req.URL.Path, err)
			}
			if !held {
				return next.RoundTrip(req)
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

// leasePushGuard is leaseWriteGuard for git pushes (githubx
// GitBuildConfig.PushGuard), which do not pass through the client's HTTP
// middleware: a push made under a hold is refused unless the hold lasts
// at least minWriteWindow more, and is cut off when the hold may pass on.
func leasePushGuard(now func() time.Time) func(context.Context) (context.Context, context.CancelFunc, error) {
	return func(ctx context.Context) (context.Context, context.CancelFunc, error) {
		until, held, err := writeWindow(ctx, now)
		if err != nil {
			return nil, nil, fmt.Errorf("refused to push: %w", err)
		}
		if !held {
			return ctx, func() {}, nil
		}
		pctx, cancel := context.WithDeadline(ctx, until)
		return pctx, cancel, nil
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
