package githubx

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// StatusCode returns the HTTP status GitHub answered for the call that
// produced err, or 0 when there was no answer (network error, timeout).
// Rate limits that go-github detected before sending report 403.
func StatusCode(err error) int { return statusOf(err) }

// IsNotFound reports whether GitHub answered 404.
func IsNotFound(err error) bool { return statusOf(err) == http.StatusNotFound }

func statusOf(err error) int {
	if err == nil {
		return 0
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return http.StatusForbidden
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		return http.StatusForbidden
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	var he *ghinstallation.HTTPError
	if errors.As(err, &he) && he.Response != nil {
		return he.Response.StatusCode
	}
	return 0
}

// messageOf returns GitHub's message for users ("" if none).
func messageOf(err error) string {
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		return er.Message
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return rl.Message
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		return ab.Message
	}
	return ""
}

// isTokenError reports whether err came from minting the installation
// token (the installation may be gone).
func isTokenError(err error) bool {
	var he *ghinstallation.HTTPError
	return errors.As(err, &he)
}

// isTransient reports whether err leaves the outcome unknown or is worth
// retrying later: 5xx, 429, rate limits, network errors and timeouts. A
// request refused as unsafe (ErrUnsafePath) was never sent and never will
// be: not transient.
func isTransient(err error) bool {
	if err == nil || errors.Is(err, ErrUnsafePath) {
		return false
	}
	if errors.Is(err, queue.ErrTransient) {
		return true
	}
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &ab) {
		return true
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && isRateLimited(er.Response) {
		return true
	}
	if status := statusOf(err); status != 0 {
		if status == http.StatusForbidden && strings.Contains(strings.ToLower(messageOf(err)), "rate limit") {
			return true
		}
		return status >= 500 || status == http.StatusTooManyRequests
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne)
}

// wrap says what failed and marks transient errors with queue.ErrTransient,
// keeping err reachable.
func wrap(what string, err error) error {
	if isTransient(err) && !errors.Is(err, queue.ErrTransient) {
		return fmt.Errorf("failed to %s: %w: %w", what, queue.ErrTransient, err)
	}
	return fmt.Errorf("failed to %s: %w", what, err)
}

// classifyMerge maps a failed PUT pulls/{n}/merge (M1, M2).
func classifyMerge(what string, err error) error {
	status, msg := statusOf(err), messageOf(err)
	switch {
	case isTransient(err):
		return wrap(what, err)
	case status == http.StatusMethodNotAllowed && strings.Contains(strings.ToLower(msg), "base branch was modified"):
		return fmt.Errorf("failed to %s: %w: %w", what, queue.ErrBaseModified, err)
	case status == http.StatusConflict:
		return fmt.Errorf("failed to %s: %w: %w", what, queue.ErrHeadMoved, err)
	case status == http.StatusNotFound:
		return fmt.Errorf("failed to %s: %w: %w", what, queue.ErrPRNotFound, err)
	case status == http.StatusMethodNotAllowed || status == http.StatusUnprocessableEntity || status == http.StatusForbidden:
		if msg == "" {
			msg = http.StatusText(status)
		}
		return fmt.Errorf("failed to %s: %w", what, &queue.RejectedError{Status: status, Message: msg})
	default:
		return wrap(what, err)
	}
}

// refMissing reports GitHub's answers for a ref that does not exist.
func refMissing(err error) bool {
	switch statusOf(err) {
	case http.StatusNotFound:
		return true
	case http.StatusUnprocessableEntity:
		return strings.Contains(strings.ToLower(messageOf(err)), "reference does not exist")
	}
	return false
}

// refExists reports GitHub's answer for creating a ref that exists.
func refExists(err error) bool {
	return statusOf(err) == http.StatusUnprocessableEntity &&
		strings.Contains(strings.ToLower(messageOf(err)), "already exists")
}
