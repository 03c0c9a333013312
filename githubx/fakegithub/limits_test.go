package fakegithub

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"
)

// testClock is a clock the test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Over a limit the fake answers as GitHub does (403 or 429, GitHub's
// message and documentation_url, retry-after), applies nothing, and
// refuses every request until the window it announced ends, recording
// those that arrived inside it; the windows slide.
func TestSecondaryLimitsRefuseAsGitHub(t *testing.T) {
	t.Parallel()
	clk := &testClock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	s := newServer(t, Options{Limits: &SecondaryLimits{WritesPerMinute: 2, WritesPerHour: 3, RetryAfter: 5 * time.Second,
		TooManyRequestsEvery: 3, Now: clk.Now}})
	ctx := t.Context()
	c := newClient(t, s, "/")
	must(t)(s.Commit(testOwner, testRepo, "feat", map[string]string{"a.txt": "a"}, "a"))
	n, _ := s.OpenPR(testOwner, testRepo, PROptions{Head: "feat", Author: "alice"})
	comment := func(body string) *github.Response {
		_, resp, _ := c.Issues.CreateComment(ctx, testOwner, testRepo, n, &github.IssueComment{Body: github.String(body)})
		return resp
	}
	for _, b := range []string{"one", "two"} {
		if resp := comment(b); statusOf(resp) != http.StatusCreated {
			t.Fatalf("comment %s = %d, want 201", b, statusOf(resp))
		}
	}
	// The third write of the minute is refused, as GitHub refuses it.
	clk.advance(10 * time.Second)
	_, resp, err := c.Issues.CreateComment(ctx, testOwner, testRepo, n, &github.IssueComment{Body: github.String("three")})
	if statusOf(resp) != http.StatusForbidden || resp.Header.Get("Retry-After") != "5" {
		t.Fatalf("third write = %d, retry-after %q; want 403, 5", statusOf(resp), resp.Header.Get("Retry-After"))
	}
	var abuse *github.AbuseRateLimitError
	if !errors.As(err, &abuse) || !strings.HasPrefix(abuse.Message, "You have exceeded a secondary rate limit.") {
		t.Fatalf("error = %v, want go-github's AbuseRateLimitError with GitHub's message", err)
	}
	if got := len(s.Comments(testOwner, testRepo, n)); got != 2 {
		t.Fatalf("%d comments, want the refused one not applied", got)
	}
	// Inside the window, a read is refused too (the second refusal), and
	// told how long is left.
	clk.advance(2500 * time.Millisecond)
	c2 := newClient(t, s, "/") // go-github would refuse it locally
	_, resp, _ = c2.PullRequests.Get(ctx, testOwner, testRepo, n)
	if statusOf(resp) != http.StatusForbidden || resp.Header.Get("Retry-After") != "3" {
		t.Fatalf("read inside the window = %d, retry-after %q; want 403, 3", statusOf(resp), resp.Header.Get("Retry-After"))
	}
	// After the window a read passes; the minute still holds two writes:
	// the third refusal is a 429.
	clk.advance(2500 * time.Millisecond)
	c3 := newClient(t, s, "/")
	if _, resp, _ = c3.PullRequests.Get(ctx, testOwner, testRepo, n); statusOf(resp) != http.StatusOK {
		t.Fatalf("read after the window = %d", statusOf(resp))
	}
	raw := rawPost(t, s, "/repos/acme/widgets/issues/1/comments", `{"body":"four"}`)
	if raw.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("write in the full minute = %d, want 429", raw.StatusCode)
	}
	var body map[string]string
	if err := json.NewDecoder(raw.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body["documentation_url"] != secondaryDocs || !strings.Contains(body["message"], "secondary rate limit") {
		t.Errorf("refusal body = %v", body)
	}
	// The minute slides: a minute after the first writes there is room for
	// one more write, then the hour is full.
	clk.advance(time.Minute)
	c4 := newClient(t, s, "/")
	if _, resp, _ = c4.Issues.CreateComment(ctx, testOwner, testRepo, n, &github.IssueComment{Body: github.String("five")}); statusOf(resp) != http.StatusCreated {
		t.Fatalf("write in the next minute = %d", statusOf(resp))
	}
	clk.advance(10 * time.Second)
	if _, resp, _ = c4.Issues.CreateComment(ctx, testOwner, testRepo, n, &github.IssueComment{Body: github.String("six")}); statusOf(resp) != http.StatusForbidden {
		t.Fatalf("write over the hour = %d", statusOf(resp))
	}

	r := s.LimitReport(s.InstallationID())
	if r.Accepted != 4 || r.AcceptedWrites != 3 || r.Refusals != 4 || len(r.Inside) != 1 || len(r.Windows) != 3 {
		t.Fatalf("report = %+v", r)
	}
	if w := r.Windows[0]; w.Limit != "writes_per_minute" || w.Status != 403 || w.RetryAfter != 5*time.Second || w.End.Sub(w.Start) != 5*time.Second {
		t.Errorf("first window = %+v", w)
	}
	if w := r.Windows[2]; w.Limit != "writes_per_hour" {
		t.Errorf("last window = %+v", w)
	}
	if in := r.Inside[0]; in.Route != "GET /repos/{owner}/{repo}/pulls/{number}" || in.At.Before(r.Windows[0].Start) || !in.At.Before(r.Windows[0].End) {
		t.Errorf("inside = %+v", in)
	}
	if got := s.LimitReport(s.InstallationID() + 1); got.Refusals != 0 {
		t.Errorf("another installation's report = %+v", got)
	}
}

// Without retry-after (as GitHub sometimes answers) the window is a
// minute; points and concurrency are limited too, and writes may be
// refused for undisclosed reasons.
func TestSecondaryLimitsPointsAndNoRetryAfter(t *testing.T) {
	t.Parallel()
	clk := &testClock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	s := newServer(t, Options{Limits: &SecondaryLimits{PointsPerMinute: 3, Minute: 10 * time.Second, RetryAfter: -1, Now: clk.Now}})
	ctx := t.Context()
	for i := range 3 {
		c := newClient(t, s, "/")
		if _, resp, _ := c.Repositories.Get(ctx, testOwner, testRepo); statusOf(resp) != http.StatusOK {
			t.Fatalf("read %d = %d", i, statusOf(resp))
		}
	}
	c := newClient(t, s, "/")
	_, resp, _ := c.Repositories.Get(ctx, testOwner, testRepo)
	if statusOf(resp) != http.StatusForbidden || resp.Header.Get("Retry-After") != "" {
		t.Fatalf("fourth read = %d, retry-after %q; want 403 without", statusOf(resp), resp.Header.Get("Retry-After"))
	}
	r := s.LimitReport(s.InstallationID())
	if w := r.Windows[0]; w.Limit != "points_per_minute" || w.RetryAfter != 0 || w.End.Sub(w.Start) != 10*time.Second {
		t.Errorf("window = %+v, want a Minute long without retry-after", w)
	}

	u := newLimiter(SecondaryLimits{UndisclosedEvery: 3, RetryAfter: time.Second, Now: clk.Now})
	var got []bool
	for range 6 {
		refused, done := u.admit("POST", "POST /x")
		if done != nil {
			done()
		}
		got = append(got, refused != nil)
		clk.advance(2 * time.Second)
	}
	if want := []bool{false, false, true, false, false, true}; !slices.Equal(got, want) {
		t.Errorf("refused %v, want every third write", got)
	}
	if w := u.snapshot().Windows; len(w) != 2 || w[0].Limit != "undisclosed" {
		t.Errorf("windows %+v", w)
	}

	l := newLimiter(SecondaryLimits{Concurrent: 1, Now: clk.Now})
	refused, done := l.admit("GET", "GET /x")
	if refused != nil {
		t.Fatal("first request refused")
	}
	if again, _ := l.admit("GET", "GET /x"); again == nil || again.status != http.StatusForbidden {
		t.Fatalf("second concurrent request = %+v, want refused", again)
	}
	done()
	clk.advance(time.Minute)
	if again, _ := l.admit("GET", "GET /x"); again != nil {
		t.Fatalf("request after the first ended = %+v", again)
	}
}

// rawPost posts body with an installation token and returns the response
// (closed at the end of the test).
func rawPost(t *testing.T, s *Server, path, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+s.IssueToken())
	resp, err := (&http.Client{Timeout: requestTimeout}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = io.Copy(io.Discard, resp.Body); resp.Body.Close() })
	return resp
}
