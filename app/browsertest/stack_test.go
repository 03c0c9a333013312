package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mergequeue/mq/app/sandbox"
	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers/api/apitoken"
)

const (
	owner = "acme"
	repo  = "widgets"
)

// stack is the real app on the fake GitHub over loopback, as the sandbox
// runs them, with a repository acme/widgets (required check ci/test) and
// an API token.
type stack struct {
	t     *testing.T
	env   *sandbox.Env
	host  string
	token string
}

// startStack starts the stack; host is the repo host queues use (the
// host name of the page the extension reads it from).
func startStack(t *testing.T, host string) *stack {
	t.Helper()
	ctx := context.Background()
	env, err := sandbox.Start(ctx, sandbox.Options{Dir: t.TempDir(), ReconcileInterval: 200 * time.Millisecond, Host: host})
	if err != nil {
		t.Fatalf("failed to start the sandbox: %v", err)
	}
	t.Cleanup(env.Close)
	token, _, err := apitoken.Issue(ctx, env.App().Store(), "browsertest", nil, nil, 0, time.Now())
	if err != nil {
		t.Fatalf("failed to issue a token: %v", err)
	}
	if err := env.Fake.CreateRepo(owner, repo, map[string]string{"README.md": "widgets\n"}); err != nil {
		t.Fatalf("failed to create the repository: %v", err)
	}
	if err := env.Fake.SetRequiredChecks(owner, repo, "main", []string{"ci/test"}); err != nil {
		t.Fatalf("failed to set required checks: %v", err)
	}
	return &stack{t: t, env: env, host: host, token: token}
}

// call POSTs a /v1 operation and returns the status and body.
func (s *stack) call(op string, body map[string]any) (int, []byte) {
	s.t.Helper()
	body["repo"] = map[string]any{"host": s.host, "owner": owner, "name": repo}
	body["targetBranch"] = "main"
	data, err := json.Marshal(body)
	if err != nil {
		s.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.env.URL+"/v1/"+op, bytes.NewReader(data))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("x-api-token", s.token)
	client := &http.Client{Timeout: stepBound}
	resp, err := client.Do(req)
	if err != nil {
		s.t.Fatalf("failed to call %s: %v", op, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatalf("failed to read %s's answer: %v", op, err)
	}
	return resp.StatusCode, out
}

func (s *stack) mustCall(op string, body map[string]any) []byte {
	s.t.Helper()
	status, out := s.call(op, body)
	if status != http.StatusOK {
		s.t.Fatalf("%s: status %d: %s", op, status, out)
	}
	return out
}

// entry is the part of getSubmittedPullRequest the tests read.
type entry struct {
	State                       string `json:"state"`
	StateReason                 string `json:"stateReason"`
	PriorityName                string `json:"priorityName"`
	NoBatch                     bool   `json:"noBatch"`
	IsCurrentlySubmittedToQueue bool   `json:"isCurrentlySubmittedToQueue"`
	TestRunID                   string `json:"testRunId"`
}

// entry reads a PR's entry; ok is false when it was never submitted.
func (s *stack) entry(pr int) (entry, bool) {
	s.t.Helper()
	status, out := s.call("getSubmittedPullRequest", map[string]any{"pr": map[string]any{"number": pr}})
	if status == http.StatusNotFound {
		return entry{}, false
	}
	if status != http.StatusOK {
		s.t.Fatalf("getSubmittedPullRequest #%d: status %d: %s", pr, status, out)
	}
	var e entry
	if err := json.Unmarshal(out, &e); err != nil {
		s.t.Fatalf("failed to decode #%d's entry: %v", pr, err)
	}
	return e, true
}

// waitEntry polls PR pr's entry until cond holds, failing after stepBound.
func (s *stack) waitEntry(pr int, what string, cond func(entry) bool) entry {
	s.t.Helper()
	deadline := time.Now().Add(stepBound)
	for {
		e, ok := s.entry(pr)
		if ok && cond(e) {
			return e
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out after %v waiting for #%d %s; last: %+v (submitted: %v)", stepBound, pr, what, e, ok)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not a wait for an outcome
	}
}

func (s *stack) waitState(pr int, state string) entry {
	s.t.Helper()
	return s.waitEntry(pr, "to be "+state, func(e entry) bool { return e.State == state })
}

// openPR commits files on a new branch and opens a PR from it.
func (s *stack) openPR(branch, title string, files map[string]string) int {
	s.t.Helper()
	if _, err := s.env.Fake.Commit(owner, repo, branch, files, title); err != nil {
		s.t.Fatalf("failed to commit on %s: %v", branch, err)
	}
	n, err := s.env.Fake.OpenPR(owner, repo, fakegithub.PROptions{Head: branch, Base: "main", Title: title, Author: "alice"})
	if err != nil {
		s.t.Fatalf("failed to open a PR from %s: %v", branch, err)
	}
	return n
}

func (s *stack) submit(pr int, extra map[string]any) {
	s.t.Helper()
	body := map[string]any{"pr": map[string]any{"number": pr}}
	for k, v := range extra {
		body[k] = v
	}
	s.mustCall("submitPullRequest", body)
}

func prRef(pr int) string { return fmt.Sprintf("#%d", pr) }
