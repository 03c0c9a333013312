package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
)

const (
	owner = "acme"
	repo  = "widgets"
)

// Every wait in these tests is a condition with a bound of its own, and every
// HTTP request has its own timeout; none is shared by several steps or
// subtests. The bounds are generous for a busy machine running -race and cost
// nothing when the condition comes quickly.
const (
	waitBound      = 60 * time.Second // one waitFor / waitState / waitWebhooksIdle
	requestTimeout = 60 * time.Second // one HTTP request to the app or the fake
)

// testHTTP is http.DefaultClient with a bound on each request.
var testHTTP = &http.Client{Timeout: requestTimeout}

// harness is one sandbox for one test, with an API token.
type harness struct {
	t     testing.TB
	env   *Env
	token string
}

func newHarness(t *testing.T, ci fakegithub.CIOptions) *harness {
	t.Helper()
	return newHarnessWith(t, Options{CI: ci})
}

// newHarnessWith starts a sandbox with opts (Dir is set here, and
// ReconcileInterval to one second unless given).
func newHarnessWith(t testing.TB, opts Options) *harness {
	t.Helper()
	ctx := context.Background()
	opts.Dir = t.TempDir()
	if opts.Database == nil {
		// The Env's SQLite file, migrated already (sqlitetest).
		sqlitetest.CopyTo(t, filepath.Join(opts.Dir, "mq.db"))
	}
	if opts.ReconcileInterval == 0 {
		opts.ReconcileInterval = time.Second
	}
	if os.Getenv("MQ_TEST_LOG") != "" {
		l := zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr}).With().Timestamp().Logger()
		opts.Logger = &l
	}
	env, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("failed to start sandbox: %v", err)
	}
	t.Cleanup(env.Close)
	if opts.Database == nil && env.DatabasePath() != filepath.Join(opts.Dir, "mq.db") {
		t.Fatalf("the sandbox opened %s, not the migrated copy in its directory", env.DatabasePath())
	}
	secret, _, err := apitoken.Issue(ctx, env.App().Store(), "test", nil, nil, 0, time.Now())
	if err != nil {
		t.Fatalf("failed to issue token: %v", err)
	}
	h := &harness{t: t, env: env, token: secret}
	if err := env.Fake.CreateRepo(owner, repo, map[string]string{"README.md": "widgets\n", "a.txt": "1\n2\n3\n"}); err != nil {
		t.Fatalf("create repo: %v", err)
	}
	if err := env.Fake.SetRequiredChecks(owner, repo, "main", []string{"ci/test"}); err != nil {
		t.Fatalf("required checks: %v", err)
	}
	return h
}

// post calls a REST operation and returns the status and body.
func (h *harness) post(op string, body any) (int, []byte) {
	h.t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		h.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, h.env.URL+"/v1/"+op, bytes.NewReader(data))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-token", h.token)
	resp, err := testHTTP.Do(req)
	if err != nil {
		h.t.Fatalf("%s: %v", op, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func (h *harness) mustPost(op string, body any) []byte {
	h.t.Helper()
	status, out := h.post(op, body)
	if status != http.StatusOK {
		h.t.Fatalf("%s: status %d: %s", op, status, out)
	}
	return out
}

func repoBody() map[string]any {
	return map[string]any{"host": "github.com", "owner": owner, "name": repo}
}

func (h *harness) createQueue(concurrency int) {
	h.mustPost("createQueue", map[string]any{"repo": repoBody(), "targetBranch": "main", "concurrency": concurrency})
}

func (h *harness) submit(pr int) {
	h.mustPost("submitPullRequest", map[string]any{"repo": repoBody(), "targetBranch": "main", "pr": map[string]any{"number": pr}})
}

type submitted struct {
	State             string `json:"state"`
	StateReason       string `json:"stateReason"`
	StateReasonDetail string `json:"stateReasonDetail"`
	TestRunID         string `json:"testRunId"`
}

// entry reads getSubmittedPullRequest; ok is false on 404.
func (h *harness) entry(pr int) (submitted, bool) {
	h.t.Helper()
	status, out := h.post("getSubmittedPullRequest", map[string]any{"repo": repoBody(), "targetBranch": "main", "pr": map[string]any{"number": pr}})
	if status == http.StatusNotFound {
		return submitted{}, false
	}
	if status != http.StatusOK {
		h.t.Fatalf("getSubmittedPullRequest #%d: %d %s", pr, status, out)
	}
	var s submitted
	if err := json.Unmarshal(out, &s); err != nil {
		h.t.Fatal(err)
	}
	return s, true
}

// waitState polls until PR pr's entry is in state want, failing on a
// deadline (never a fixed sleep).
func (h *harness) waitState(pr int, want string) submitted {
	h.t.Helper()
	var last submitted
	h.waitFor(fmt.Sprintf("#%d to be %s", pr, want), func() bool {
		s, ok := h.entry(pr)
		last = s
		return ok && s.State == want
	}, func() string { return fmt.Sprintf("last: %+v", last) })
	return last
}

// waitFor polls cond every 20ms for up to waitBound.
func (h *harness) waitFor(what string, cond func() bool, explain func() string) {
	h.t.Helper()
	deadline := time.Now().Add(waitBound)
	for !cond() {
		if time.Now().After(deadline) {
			msg := ""
			if explain != nil {
				msg = explain()
			}
			h.t.Fatalf("timed out after %v waiting for %s; %s", waitBound, what, msg)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not a wait for an outcome
	}
}

// waitWebhooksIdle waits, with a bound of its own, until the fake GitHub
// has delivered every webhook it queued.
func (h *harness) waitWebhooksIdle() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	if err := h.env.Fake.WaitWebhooksIdle(ctx); err != nil {
		h.t.Fatalf("webhooks not delivered within %v: %v", waitBound, err)
	}
}

// openPR commits files on a new branch and opens a PR from it.
func (h *harness) openPR(branch string, files map[string]string) int {
	h.t.Helper()
	if _, err := h.env.Fake.Commit(owner, repo, branch, files, "change "+branch); err != nil {
		h.t.Fatalf("commit %s: %v", branch, err)
	}
	n, err := h.env.Fake.OpenPR(owner, repo, fakegithub.PROptions{Head: branch, Base: "main", Title: "Change " + branch, Author: "dev"})
	if err != nil {
		h.t.Fatalf("open PR %s: %v", branch, err)
	}
	return n
}

// mainCommits returns main's first-parent history, oldest first.
func (h *harness) mainCommits() []string {
	h.t.Helper()
	hist, err := h.env.Fake.MainHistory(owner, repo, "main")
	if err != nil {
		h.t.Fatal(err)
	}
	out := make([]string, len(hist))
	for i, c := range hist {
		out[len(hist)-1-i] = c
	}
	return out
}

// passedTrees returns the trees of every commit the simulated CI passed.
func (h *harness) passedTrees() map[string]bool {
	h.t.Helper()
	trees := map[string]bool{}
	for _, r := range h.env.Fake.CIRuns() {
		if r.Result != "success" {
			continue
		}
		tree, err := h.env.Fake.TreeSHA(owner, repo, r.SHA)
		if err != nil {
			h.t.Fatal(err)
		}
		trees[tree] = true
	}
	return trees
}

// assertLandedTreesPassed checks that every commit main gained after the
// initial one has a tree that passed CI.
func (h *harness) assertLandedTreesPassed(initial int) {
	h.t.Helper()
	passed := h.passedTrees()
	commits := h.mainCommits()
	for _, c := range commits[initial:] {
		tree, err := h.env.Fake.TreeSHA(owner, repo, c)
		if err != nil {
			h.t.Fatal(err)
		}
		if !passed[tree] {
			h.t.Errorf("main commit %s has tree %s that no passing CI run tested", c, tree)
		}
	}
}

// mergeCommit returns the commit a PR was merged as ("" if not merged).
func (h *harness) mergeCommit(pr int) string {
	h.t.Helper()
	p, err := h.env.Fake.PR(owner, repo, pr)
	if err != nil {
		h.t.Fatal(err)
	}
	if !p.GetMerged() {
		return ""
	}
	return p.GetMergeCommitSHA()
}

func indexOf(list []string, v string) int {
	for i, x := range list {
		if x == v {
			return i
		}
	}
	return -1
}
