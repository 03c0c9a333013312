package githubx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

func errResp(status int, msg string, headers ...string) *github.ErrorResponse {
	h := http.Header{}
	for i := 0; i+1 < len(headers); i += 2 {
		h.Set(headers[i], headers[i+1])
	}
	return &github.ErrorResponse{Response: &http.Response{StatusCode: status, Header: h}, Message: msg}
}

func TestIsTransient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"500", errResp(500, ""), true},
		{"503 wrapped", fmt.Errorf("x: %w", errResp(503, "")), true},
		{"429", errResp(429, "Too Many Requests"), true},
		{"403 with Retry-After", errResp(403, "slow down", "Retry-After", "30"), true},
		{"403 secondary limit message", errResp(403, "You have exceeded a secondary rate limit"), true},
		{"primary rate limit", &github.RateLimitError{Response: &http.Response{StatusCode: 403}}, true},
		{"abuse rate limit", &github.AbuseRateLimitError{Response: &http.Response{StatusCode: 403}}, true},
		{"deadline", context.DeadlineExceeded, true},
		{"network", &url.Error{Op: "Get", URL: "http://x", Err: errors.New("connection refused")}, true},
		{"token mint 502", &url.Error{Op: "Get", URL: "http://x", Err: &ghinstallation.HTTPError{Response: &http.Response{StatusCode: 502}}}, true},
		{"token mint 404", &url.Error{Op: "Get", URL: "http://x", Err: &ghinstallation.HTTPError{Response: &http.Response{StatusCode: 404}}}, false},
		{"already transient", fmt.Errorf("x: %w", queue.ErrTransient), true},
		{"403 forbidden", errResp(403, "Resource not accessible by integration"), false},
		{"404", errResp(404, "Not Found"), false},
		{"422", errResp(422, "Validation Failed"), false},
		{"plain", errors.New("bad JSON"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mustEqual(t, "isTransient", isTransient(tt.err), tt.want)
			wrapped := wrap("do it", tt.err)
			mustEqual(t, "wrap marks ErrTransient", errors.Is(wrapped, queue.ErrTransient), tt.want)
			if !errors.Is(wrapped, tt.err) {
				t.Errorf("wrap lost the cause: %v", wrapped)
			}
		})
	}
}
