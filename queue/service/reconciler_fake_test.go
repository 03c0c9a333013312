package service_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mergequeue/mq/queue"
)

// surfaceGitHub is a GitHub port keeping what the reconciler writes:
// comments, check runs, labels and branches, with faults to inject.
type surfaceGitHub struct {
	mu       sync.Mutex
	nextID   int64
	comments map[int64]*ghComment
	checks   map[int64]*queue.CheckRun
	labels   map[int][]string
	branches map[string]bool
	pulls    map[int]*ghPull
	calls    map[string]int
	// fail maps a method to the errors its next calls return (in order).
	fail map[string][]error
	// applyThenFail lists methods whose next call takes effect and then
	// answers with a transient error, as GitHub's "applied then 502".
	applyThenFail map[string]int
	// headroom is what WriteHeadroom answers (nil: 1, all free).
	headroom *float64
}

// WriteHeadroom implements queue.WriteHeadroom.
func (g *surfaceGitHub) WriteHeadroom(queue.Repo) float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.headroom == nil {
		return 1
	}
	return *g.headroom
}

type ghComment struct {
	pr   int
	body string
}

var errBadGateway = fmt.Errorf("502 %s: %w", http.StatusText(http.StatusBadGateway), queue.ErrTransient)

func newSurfaceGitHub() *surfaceGitHub {
	return &surfaceGitHub{comments: map[int64]*ghComment{}, checks: map[int64]*queue.CheckRun{},
		labels: map[int][]string{}, branches: map[string]bool{}, pulls: map[int]*ghPull{}, calls: map[string]int{},
		fail: map[string][]error{}, applyThenFail: map[string]int{}}
}

// enter counts a call and returns an injected failure, if any.
func (g *surfaceGitHub) enter(method string) error {
	g.calls[method]++
	if errs := g.fail[method]; len(errs) > 0 {
		g.fail[method] = errs[1:]
		return errs[0]
	}
	return nil
}

// after reports the failure of a call that took effect, if one is due.
func (g *surfaceGitHub) after(method string) error {
	if g.applyThenFail[method] > 0 {
		g.applyThenFail[method]--
		return errBadGateway
	}
	return nil
}

func (g *surfaceGitHub) UpsertComment(_ context.Context, _ queue.Repo, n int, id int64, body string) (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("UpsertComment"); err != nil {
		return 0, err
	}
	if c, ok := g.comments[id]; ok && id != 0 {
		c.body = body
		return id, g.after("UpsertComment")
	}
	g.nextID++
	g.comments[g.nextID] = &ghComment{pr: n, body: body}
	return g.nextID, g.after("UpsertComment")
}

func (g *surfaceGitHub) FindComment(_ context.Context, _ queue.Repo, n int, marker string, _ time.Time) (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("FindComment"); err != nil {
		return 0, err
	}
	var found int64
	for id, c := range g.comments {
		if c.pr == n && strings.Contains(c.body, marker) && id > found {
			found = id
		}
	}
	return found, nil
}

func (g *surfaceGitHub) UpsertCheckRun(_ context.Context, _ queue.Repo, id int64, run queue.CheckRun) (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("UpsertCheckRun"); err != nil {
		return 0, err
	}
	if old, ok := g.checks[id]; ok && id != 0 {
		run.HeadSHA = old.HeadSHA
		g.checks[id] = &run
		return id, g.after("UpsertCheckRun")
	}
	g.nextID++
	g.checks[g.nextID] = &run
	return g.nextID, g.after("UpsertCheckRun")
}

func (g *surfaceGitHub) FindCheckRun(_ context.Context, _ queue.Repo, sha, name, externalID string) (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("FindCheckRun"); err != nil {
		return 0, err
	}
	var found int64
	for id, c := range g.checks {
		if c.HeadSHA == sha && c.Name == name && c.ExternalID == externalID && id > found {
			found = id
		}
	}
	return found, nil
}

func (g *surfaceGitHub) AddLabel(_ context.Context, _ queue.Repo, n int, label string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("AddLabel"); err != nil {
		return err
	}
	if !slices.Contains(g.labels[n], label) {
		g.labels[n] = append(g.labels[n], label)
	}
	return nil
}

func (g *surfaceGitHub) RemoveLabel(_ context.Context, _ queue.Repo, n int, label string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("RemoveLabel"); err != nil {
		return err
	}
	g.labels[n] = slices.DeleteFunc(g.labels[n], func(l string) bool { return l == label })
	return nil
}

func (g *surfaceGitHub) AddReaction(_ context.Context, _ queue.Repo, _ int64, _ string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.enter("AddReaction")
}

func (g *surfaceGitHub) ListBranches(_ context.Context, _ queue.Repo, prefix string) ([]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("ListBranches"); err != nil {
		return nil, err
	}
	var out []string
	for b := range g.branches {
		if strings.HasPrefix(b, prefix) {
			out = append(out, b)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (g *surfaceGitHub) DeleteBranch(_ context.Context, _ queue.Repo, name string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("DeleteBranch"); err != nil {
		return err
	}
	delete(g.branches, name)
	return nil
}

// DeleteBranches implements queue.BranchBatchDeleter.
func (g *surfaceGitHub) DeleteBranches(_ context.Context, _ queue.Repo, names []string) ([]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("DeleteBranches"); err != nil {
		return nil, err
	}
	for _, n := range names {
		delete(g.branches, n)
	}
	return names, nil
}

// The rest of the port is not used by the reconciler.

func (g *surfaceGitHub) GetPullRequest(context.Context, queue.Repo, int) (*queue.PullRequest, error) {
	return nil, queue.ErrPRNotFound
}
func (g *surfaceGitHub) BranchHead(context.Context, queue.Repo, string) (string, error) {
	return "", nil
}
func (g *surfaceGitHub) RequiredChecks(context.Context, queue.Repo, string) ([]string, error) {
	return nil, nil
}
func (g *surfaceGitHub) BuildBranch(context.Context, queue.Repo, queue.BranchSpec) (queue.Built, error) {
	return queue.Built{}, nil
}
func (g *surfaceGitHub) Checks(context.Context, queue.Repo, string) ([]queue.CheckResult, error) {
	return nil, nil
}
func (g *surfaceGitHub) TreeSHA(context.Context, queue.Repo, string) (string, error) { return "", nil }
func (g *surfaceGitHub) MergePullRequest(context.Context, queue.Repo, int, queue.MergeRequest) (string, error) {
	return "", nil
}
func (g *surfaceGitHub) Permission(context.Context, queue.Repo, string) (string, error) {
	return "admin", nil
}

// commentsOn returns the bodies of the comments on PR n, oldest first.
func (g *surfaceGitHub) commentsOn(n int) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var ids []int64
	for id, c := range g.comments {
		if c.pr == n {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = g.comments[id].body
	}
	return out
}

// checkRunsOn returns the check runs on sha, oldest first.
func (g *surfaceGitHub) checkRunsOn(sha string) []queue.CheckRun {
	g.mu.Lock()
	defer g.mu.Unlock()
	var ids []int64
	for id, c := range g.checks {
		if c.HeadSHA == sha {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	out := make([]queue.CheckRun, len(ids))
	for i, id := range ids {
		out[i] = *g.checks[id]
	}
	return out
}

func (g *surfaceGitHub) count(method string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls[method]
}

// ghPull is a PR the reconciler opened.
type ghPull struct {
	head, base, title, body string
	draft, closed           bool
}

func (g *surfaceGitHub) OpenDraftPR(_ context.Context, _ queue.Repo, head, base, title, body string) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("OpenDraftPR"); err != nil {
		return 0, err
	}
	g.nextID++
	n := int(g.nextID)
	g.pulls[n] = &ghPull{head: head, base: base, title: title, body: body, draft: true}
	return n, g.after("OpenDraftPR")
}

func (g *surfaceGitHub) EditPR(_ context.Context, _ queue.Repo, n int, title, body string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("EditPR"); err != nil {
		return err
	}
	g.pulls[n].title, g.pulls[n].body = title, body
	return nil
}

func (g *surfaceGitHub) ClosePR(_ context.Context, _ queue.Repo, n int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("ClosePR"); err != nil {
		return err
	}
	g.pulls[n].closed = true
	return nil
}

func (g *surfaceGitHub) FindPRByHead(_ context.Context, _ queue.Repo, head string) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("FindPRByHead"); err != nil {
		return 0, err
	}
	found := 0
	for n, p := range g.pulls {
		if p.head == head && n > found {
			found = n
		}
	}
	return found, nil
}

// pullsOf returns the PRs opened for a head branch.
func (g *surfaceGitHub) pullsOf(head string) []ghPull {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []ghPull
	for _, p := range g.pulls {
		if p.head == head {
			out = append(out, *p)
		}
	}
	return out
}

func (g *surfaceGitHub) ListLabels(_ context.Context, _ queue.Repo, n int) ([]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.enter("ListLabels"); err != nil {
		return nil, err
	}
	return slices.Clone(g.labels[n]), nil
}
