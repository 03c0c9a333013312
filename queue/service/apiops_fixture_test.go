package service_test

// Fixture for the tests of the API-facing service operations (admin.go,
// targets.go): a real SQLite store and a hand-written GitHub port. Names
// carry an "ops" prefix so they do not collide with other external tests
// of package queue.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/service"
	"github.com/mergequeue/mq/queue/sqlite"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
)

var opsNow = time.Date(2026, 7, 23, 12, 0, 0, 0, time.UTC)

var opsKey = queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}, Branch: "main"}

// opsGitHub is a queue.GitHub (and queue.WorkflowRuns) answering from maps.
type opsGitHub struct {
	mu        sync.Mutex
	prs       map[int]*queue.PullRequest
	runs      map[int64]queue.WorkflowRun
	runErr    error // returned by WorkflowRun when set
	prErr     error // returned by GetPullRequest when set
	deleted   []string
	deleteErr error
}

func newOpsGitHub() *opsGitHub {
	return &opsGitHub{prs: map[int]*queue.PullRequest{}, runs: map[int64]queue.WorkflowRun{}}
}

func (g *opsGitHub) GetPullRequest(_ context.Context, _ queue.Repo, n int) (*queue.PullRequest, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.prErr != nil {
		return nil, g.prErr
	}
	pr, ok := g.prs[n]
	if !ok {
		return nil, fmt.Errorf("pull request #%d: %w", n, queue.ErrPRNotFound)
	}
	cp := *pr
	return &cp, nil
}

func (g *opsGitHub) WorkflowRun(_ context.Context, _ queue.Repo, id int64) (*queue.WorkflowRun, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.runErr != nil {
		return nil, g.runErr
	}
	r, ok := g.runs[id]
	if !ok {
		return nil, errors.New("404 Not Found")
	}
	r.PullRequests = slices.Clone(r.PullRequests)
	return &r, nil
}

func (g *opsGitHub) DeleteBranch(_ context.Context, _ queue.Repo, name string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.deleted = append(g.deleted, name)
	return g.deleteErr
}

func (g *opsGitHub) deletedBranches() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.deleted...)
}

func (g *opsGitHub) BranchHead(context.Context, queue.Repo, string) (string, error) {
	return "base", nil
}

func (g *opsGitHub) RequiredChecks(context.Context, queue.Repo, string) ([]string, error) {
	return []string{"ci"}, nil
}

func (g *opsGitHub) BuildBranch(context.Context, queue.Repo, queue.BranchSpec) (queue.Built, error) {
	return queue.Built{}, errors.New("opsGitHub builds no branches")
}

func (g *opsGitHub) Checks(context.Context, queue.Repo, string) ([]queue.CheckResult, error) {
	return nil, nil
}

func (g *opsGitHub) TreeSHA(context.Context, queue.Repo, string) (string, error) { return "tree", nil }

func (g *opsGitHub) MergePullRequest(context.Context, queue.Repo, int, queue.MergeRequest) (string, error) {
	return "", errors.New("opsGitHub merges nothing")
}

func (g *opsGitHub) Permission(context.Context, queue.Repo, string) (string, error) {
	return "write", nil
}

func (g *opsGitHub) UpsertComment(context.Context, queue.Repo, int, int64, string) (int64, error) {
	return 1, nil
}

func (g *opsGitHub) AddReaction(context.Context, queue.Repo, int64, string) error { return nil }

func (g *opsGitHub) UpsertCheckRun(context.Context, queue.Repo, int64, queue.CheckRun) (int64, error) {
	return 1, nil
}
func (g *opsGitHub) FindComment(context.Context, queue.Repo, int, string, time.Time) (int64, error) {
	return 0, nil
}
func (g *opsGitHub) FindCheckRun(context.Context, queue.Repo, string, string, string) (int64, error) {
	return 0, nil
}
func (g *opsGitHub) ListBranches(context.Context, queue.Repo, string) ([]string, error) {
	return nil, nil
}

// opsFixture is a Service over a fresh store and opsGitHub, with a fixed
// clock and a record of wakes.
type opsFixture struct {
	t     *testing.T
	ctx   context.Context
	store *sqlite.Store
	gh    *opsGitHub
	svc   *service.Service

	mu    sync.Mutex
	wakes []int64
}

func newOpsFixture(t *testing.T) *opsFixture {
	t.Helper()
	store := sqlitetest.Open(t)
	f := &opsFixture{t: t, ctx: context.Background(), store: store, gh: newOpsGitHub()}
	n := 0
	f.svc = service.NewService(store, f.gh, service.Options{
		Now:   func() time.Time { return opsNow },
		NewID: func() string { n++; return fmt.Sprintf("id-%d", n) },
		Wake: func(id int64) {
			f.mu.Lock()
			f.wakes = append(f.wakes, id)
			f.mu.Unlock()
		},
	})
	return f
}

func (f *opsFixture) wakeCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.wakes)
}

// queue creates the opsKey queue (or another branch) with settings s.
func (f *opsFixture) queue(branch string, s queue.Settings) *queue.Queue {
	f.t.Helper()
	key := opsKey
	key.Branch = branch
	q, err := f.svc.CreateQueue(f.ctx, key, s)
	if err != nil {
		f.t.Fatalf("CreateQueue: %v", err)
	}
	return q
}

// entry stores an entry for PR n in state st, submitted at submitted.
func (f *opsFixture) entry(q *queue.Queue, n int, st queue.EntryState, submitted time.Time, mod ...func(e *queue.Entry)) *queue.Entry {
	f.t.Helper()
	e := &queue.Entry{
		ID: fmt.Sprintf("e-%d-%d", q.ID, n), QueueID: q.ID, PRNumber: n, PRSHA: fmt.Sprintf("sha%d", n),
		PR:    queue.PRFacts{Title: fmt.Sprintf("PR %d", n), Author: "dev", HeadSHA: fmt.Sprintf("sha%d", n), BaseBranch: q.Key.Branch, Open: true, MergeableState: "clean", ReadAt: submitted},
		State: st, StateReason: queue.ReasonSubmitted, StateChangedAt: submitted,
		PriorityValue: queue.DefaultPriority, PriorityName: "medium", UsedDefaultPriorityName: true,
		SubmittedAt: submitted, Seq: int64(n), Source: "api",
	}
	if st != queue.StateNotReady {
		e.AdmittedAt = submitted
	}
	if st.Terminal() {
		e.ConcludedAt = submitted.Add(time.Minute)
	}
	for _, m := range mod {
		m(e)
	}
	if err := f.store.SaveEntry(f.ctx, e); err != nil {
		f.t.Fatalf("SaveEntry: %v", err)
	}
	return e
}

// run stores a run of q testing entries on top of ahead.
func (f *opsFixture) run(q *queue.Queue, id string, status queue.RunStatus, unit []*queue.Entry, ahead []*queue.Entry) *queue.TestRun {
	f.t.Helper()
	r := &queue.TestRun{ID: id, QueueID: q.ID, BaseSHA: "base", Status: status, CreatedAt: opsNow.Add(-time.Minute),
		RequiredChecks: []string{"ci"}, Branch: fmt.Sprintf("mq-merge/pr-%d/%s", unit[0].PRNumber, id), SHA: "test-" + id}
	for _, e := range unit {
		r.EntryIDs = append(r.EntryIDs, e.ID)
		r.PRNumbers = append(r.PRNumbers, e.PRNumber)
		r.PRSHAs = append(r.PRSHAs, e.PRSHA)
	}
	for _, e := range ahead {
		r.Ahead = append(r.Ahead, e.ID)
	}
	if err := f.store.SaveRun(f.ctx, r); err != nil {
		f.t.Fatalf("SaveRun: %v", err)
	}
	return r
}

// stored reloads the opsKey-branch queue from the store.
func (f *opsFixture) stored(branch string) *queue.Queue {
	f.t.Helper()
	key := opsKey
	key.Branch = branch
	q, err := f.store.GetQueue(f.ctx, key)
	if err != nil {
		f.t.Fatalf("GetQueue: %v", err)
	}
	return q
}

func opsEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %+v, want %+v", what, got, want)
	}
}

func opsPtr[T any](v T) *T { return &v }
