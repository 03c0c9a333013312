package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/app/sandbox"
	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers/api/apitoken"
)

// The repository every figure uses, on the fake GitHub.
const (
	loadOwner  = "load"
	loadRepo   = "widgets"
	loadBranch = "main"
	loadHost   = "github.com"
	// requiredCheck is the status the queue waits for (branch protection).
	requiredCheck = "ci/test"
)

// service is the real server (app.App, wired as `bot serve` wires it, on
// SQLite in a temporary directory) on loopback, with its fake GitHub, a
// repository, a queue and an API token.
type service struct {
	env    *sandbox.Env
	schema *pgSchema // with -postgres
	token  string
	// heads are the head SHAs of the PRs opened, by PR number.
	heads map[int]string
	prs   []int
}

// startService starts the server and its fake GitHub, creates the
// repository (branch protection requiring ci/test) and a queue of the
// given concurrency, and issues a full-access token. The logger is the
// one `bot serve` builds (JSON, info) unless logs is nil (then it writes
// nowhere, but still at info level, so that logging costs what it costs in
// production).
//
// budget is the app's github.budget (nil: the sandbox's, unlimited: the
// fake GitHub enforces no limit). With pg (a postgres:// URL) the server
// runs on PostgreSQL, in a new schema of that server dropped by Close;
// otherwise on SQLite in the sandbox's directory. testBranches is its
// github.test_branches.
func startService(ctx context.Context, logs io.Writer, reconcile time.Duration, concurrency int, budget *app.GitHubBudget, pg, testBranches string) (*service, error) {
	if logs == nil {
		logs = io.Discard
	}
	log := zerolog.New(logs).Level(zerolog.InfoLevel).With().Timestamp().Logger()
	opts := sandbox.Options{Logger: &log, ReconcileInterval: reconcile, Budget: budget, TestBranches: testBranches}
	var schema *pgSchema
	if pg != "" {
		var err error
		if schema, err = newPGSchema(ctx, pg); err != nil {
			return nil, err
		}
		if opts.Database, err = schema.database(); err != nil {
			_ = schema.drop()
			return nil, err
		}
	}
	env, err := sandbox.Start(ctx, opts)
	if err != nil {
		if schema != nil {
			_ = schema.drop()
		}
		return nil, fmt.Errorf("failed to start the server: %w", err)
	}
	s := &service{env: env, schema: schema, heads: map[int]string{}}
	if err := s.setUp(ctx, concurrency); err != nil {
		env.Close()
		return nil, err
	}
	return s, nil
}

func (s *service) setUp(ctx context.Context, concurrency int) error {
	f := s.env.Fake
	if err := f.CreateRepo(loadOwner, loadRepo, map[string]string{"README.md": "widgets\n"}); err != nil {
		return fmt.Errorf("failed to create the repository: %w", err)
	}
	if err := f.SetRequiredChecks(loadOwner, loadRepo, loadBranch, []string{requiredCheck}); err != nil {
		return fmt.Errorf("failed to protect the branch: %w", err)
	}
	secret, _, err := apitoken.Issue(ctx, s.env.App().Store(), "mqload", nil, nil, 0, time.Now())
	if err != nil {
		return fmt.Errorf("failed to issue an API token: %w", err)
	}
	s.token = secret
	return s.call(ctx, "createQueue", map[string]any{"repo": repoJSON(), "targetBranch": loadBranch, "concurrency": concurrency})
}

// Close stops the server and its fake GitHub and removes their files (and
// its PostgreSQL schema).
func (s *service) Close() {
	s.env.Close()
	if s.schema != nil {
		_ = s.schema.drop()
	}
}

func repoJSON() map[string]any {
	return map[string]any{"host": loadHost, "owner": loadOwner, "name": loadRepo}
}

// openPRs opens n PRs, each adding a file of its own.
func (s *service) openPRs(n int, tag string) error {
	f := s.env.Fake
	for i := range n {
		branch := fmt.Sprintf("%s-%d", tag, i)
		sha, err := f.Commit(loadOwner, loadRepo, branch, map[string]string{fmt.Sprintf("%s/%d.txt", tag, i): "x\n"}, "change "+branch)
		if err != nil {
			return fmt.Errorf("failed to commit on %s: %w", branch, err)
		}
		pr, err := f.OpenPR(loadOwner, loadRepo, fakegithub.PROptions{Head: branch, Base: loadBranch, Title: "Change " + branch, Author: "dev"})
		if err != nil {
			return fmt.Errorf("failed to open a PR from %s: %w", branch, err)
		}
		s.heads[pr] = sha
		s.prs = append(s.prs, pr)
	}
	return nil
}

// submit submits PR pr to the queue.
func (s *service) submit(ctx context.Context, pr int) error {
	return s.call(ctx, "submitPullRequest", map[string]any{"repo": repoJSON(), "targetBranch": loadBranch, "pr": map[string]any{"number": pr}})
}

// fill opens n PRs, holds CI (so that nothing leaves the queue), submits
// them all and waits until getQueue lists every one.
func (s *service) fill(ctx context.Context, n int) error {
	s.env.Fake.SetCIHold(true)
	if err := s.openPRs(n, "fill"); err != nil {
		return err
	}
	for _, pr := range s.prs {
		if err := s.submit(ctx, pr); err != nil {
			return err
		}
	}
	return waitFor(ctx, 2*time.Minute, fmt.Sprintf("%d PRs enqueued", n), func() (bool, error) {
		var q struct {
			Enqueued []json.RawMessage `json:"enqueuedPullRequests"`
		}
		if err := s.get(ctx, "getQueue", map[string]any{"repo": repoJSON(), "targetBranch": loadBranch}, &q); err != nil {
			return false, err
		}
		return len(q.Enqueued) == n, nil
	})
}

// call posts one REST operation and fails on any status but 200.
func (s *service) call(ctx context.Context, op string, body any) error {
	return s.get(ctx, op, body, nil)
}

// get posts one REST operation and decodes its answer into out (unless nil).
func (s *service) get(ctx context.Context, op string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("failed to encode %s: %w", op, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.env.URL+"/v1/"+op, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("failed to build %s: %w", op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-token", s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("failed to call %s: %w", op, err)
	}
	defer drain(resp)
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("failed to read the answer to %s: %w", op, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: status %d: %s", op, resp.StatusCode, answer)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("failed to decode the answer to %s: %w", op, err)
	}
	return nil
}

// waitFor polls cond every 20 ms until it holds, fails, ctx ends or bound
// passes.
func waitFor(ctx context.Context, bound time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(bound)
	for {
		ok, err := cond()
		if err != nil {
			return fmt.Errorf("failed waiting for %s: %w", what, err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s", bound, what)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped waiting for %s: %w", what, ctx.Err())
		case <-time.After(20 * time.Millisecond): // polling interval
		}
	}
}

// emptyServer serves `{}` to every request with the server settings of
// app.App.Serve (timeouts), on loopback: the reference every figure is
// compared with.
type emptyServer struct {
	URL string
	srv *http.Server
}

func startEmptyServer() (*emptyServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("failed to listen for the empty handler: %w", err)
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, "{}")
		}),
		ReadHeaderTimeout: app.ReadHeaderTimeout, IdleTimeout: app.IdleTimeout,
	}
	go func() { _ = srv.Serve(ln) }()
	return &emptyServer{URL: "http://" + ln.Addr().String(), srv: srv}, nil
}

// Close stops the empty handler's server.
func (e *emptyServer) Close() error {
	if err := e.srv.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("failed to stop the empty handler: %w", err)
	}
	return nil
}
