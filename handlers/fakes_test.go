package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// examplesDir holds GitHub's example payloads from octokit/webhooks (MIT, see
// its LICENSE and README), kept in the repository so tests need nothing else.
const examplesDir = "testdata/github-webhook-examples"

// loadExample reads an example payload, e.g. "push/payload.json".
func loadExample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(examplesDir, name))
	if err != nil {
		t.Fatalf("failed to read example payload: %v", err)
	}
	return b
}

// patchJSON decodes payload, lets edit change it, and encodes it again.
func patchJSON(t testing.TB, payload []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatalf("failed to decode payload: %v", err)
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("failed to encode payload: %v", err)
	}
	return b
}

// obj returns m[key] as an object, for patchJSON edits.
func obj(m map[string]any, key string) map[string]any { return m[key].(map[string]any) }

// accountType is the user "type" GitHub gives login in payloads: "Bot"
// for a GitHub App's "[bot]" login, "User" otherwise.
func accountType(login string) string {
	if strings.HasSuffix(login, "[bot]") {
		return "Bot"
	}
	return "User"
}

// fakeService records every call of the Service interface. Its
// CommandTarget reads PRs from gh.
type fakeService struct {
	mu sync.Mutex

	gh interface {
		GetPullRequest(ctx context.Context, repo queue.Repo, number int) (*queue.PullRequest, error)
	}

	queues   map[queue.QueueKey]*queue.Queue
	byID     map[int64]*queue.Queue
	active   []*queue.Entry // returned by ActiveEntries and CancelPR
	err      error          // returned by every write
	submitEr error          // returned by Submit (wins over err)

	calls     []string
	submits   []queue.SubmitRequest
	cancels   []cancelCall
	prs       []queue.PullRequest
	checks    []queue.CheckResult
	pushes    []pushCall
	getQueues int // queue reads: GetQueue and CommandTarget
	// Notices recorded with AddNotice, and the comments and reactions
	// among them.
	notices   []queue.Notice
	comments  []comment
	reactions []reaction
	// claims maps each claimed command to its delivery (ClaimCommand).
	claims map[commandKey]string
}

// commandKey names a comment command in the fake's claims.
type commandKey struct {
	repo      queue.Repo
	commentID int64
	updatedAt time.Time
}

// ClaimCommand keeps the first delivery to claim each command.
func (f *fakeService) ClaimCommand(_ context.Context, c queue.CommandClaim) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.claims == nil {
		f.claims = map[commandKey]string{}
	}
	k := commandKey{c.Repo.Fold(), c.CommentID, c.UpdatedAt}
	if owner, ok := f.claims[k]; ok {
		return owner == c.DeliveryID, nil
	}
	f.claims[k] = c.DeliveryID
	return true, nil
}

type cancelCall struct {
	Repo   queue.Repo
	PR     int
	Reason queue.Reason
	Detail string
}

type pushCall struct {
	Repo   queue.Repo
	Branch string
	SHA    string
}

func newFakeService() *fakeService {
	return &fakeService{queues: map[queue.QueueKey]*queue.Queue{}, byID: map[int64]*queue.Queue{}}
}

// addQueue registers a queue with settings.
func (f *fakeService) addQueue(key queue.QueueKey, s queue.Settings) *queue.Queue {
	q := &queue.Queue{ID: int64(len(f.byID) + 1), Key: key, State: queue.QueueRunning, Settings: s}
	f.queues[key] = q
	f.byID[q.ID] = q
	return q
}

func (f *fakeService) record(call string) {
	f.calls = append(f.calls, call)
}

func (f *fakeService) GetQueue(_ context.Context, key queue.QueueKey) (*queue.Queue, []*queue.Entry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.getQueues++
	q, ok := f.queues[key]
	if !ok {
		return nil, nil, fmt.Errorf("queue %s: %w", key, queue.ErrNotFound)
	}
	return q, nil, nil
}

// CommandTarget reads the PR from gh and the queue of its base branch,
// refusing as the service does: a PR gh does not know, a queue with
// commands disabled, one of the queue's test PRs.
func (f *fakeService) CommandTarget(ctx context.Context, repo queue.Repo, n int) (*queue.CommandTarget, error) {
	if f.gh == nil {
		return nil, &queue.Refusal{Reason: queue.RefusedUnknownPR, Err: queue.ErrPRNotFound}
	}
	pr, err := f.gh.GetPullRequest(ctx, repo, n)
	if errors.Is(err, queue.ErrPRNotFound) {
		return nil, &queue.Refusal{Reason: queue.RefusedUnknownPR, Msg: "GitHub does not know this pull request", Err: err}
	}
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &queue.CommandTarget{Repo: repo, PR: *pr}
	f.getQueues++
	t.Queue = f.queues[t.Key()]
	switch {
	case t.Queue != nil && !t.Queue.Settings.CommandsEnabled:
		return nil, &queue.Refusal{Reason: queue.RefusedCommandsDisabled, Msg: "commands disabled"}
	case queue.IsOwnTestPR(t.Settings(), pr.HeadRef):
		return nil, &queue.Refusal{Reason: queue.RefusedTestPR, Msg: "a test PR"}
	}
	return t, nil
}

// SubmitTarget records the submission of t's PR to t's queue (as
// "Submit"); without a queue it is refused.
func (f *fakeService) SubmitTarget(ctx context.Context, t *queue.CommandTarget, req queue.SubmitRequest) (*queue.Entry, error) {
	req.Key, req.PRNumber = t.Key(), t.PR.Number
	if t.Queue == nil {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.record("Submit")
		return nil, &queue.Refusal{Reason: queue.RefusedNoQueue, Err: queue.ErrNotFound}
	}
	return f.Submit(ctx, req)
}

func (f *fakeService) Submit(_ context.Context, req queue.SubmitRequest) (*queue.Entry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("Submit")
	if f.submitEr != nil {
		return nil, f.submitEr
	}
	if f.err != nil {
		return nil, f.err
	}
	f.submits = append(f.submits, req)
	return &queue.Entry{PRNumber: req.PRNumber, State: queue.StateNotReady}, nil
}

func (f *fakeService) Restart(_ context.Context, key queue.QueueKey, pr int) (*queue.Entry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("Restart")
	if f.err != nil {
		return nil, f.err
	}
	for _, e := range f.active {
		return e, nil
	}
	return nil, fmt.Errorf("#%d: %w", pr, queue.ErrNotActive)
}

func (f *fakeService) CancelPR(_ context.Context, repo queue.Repo, pr int, reason queue.Reason, detail string) ([]*queue.Entry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("CancelPR")
	if f.err != nil {
		return nil, f.err
	}
	f.cancels = append(f.cancels, cancelCall{repo, pr, reason, detail})
	return slices.Clone(f.active), nil
}

func (f *fakeService) ActiveEntries(_ context.Context, _ queue.Repo, _ int) ([]*queue.Entry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("ActiveEntries")
	return slices.Clone(f.active), f.err
}

func (f *fakeService) QueueByID(_ context.Context, id int64) (*queue.Queue, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, ok := f.byID[id]
	if !ok {
		return nil, queue.ErrNotFound
	}
	return q, nil
}

func (f *fakeService) OnPullRequest(_ context.Context, _ queue.Repo, pr queue.PullRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("OnPullRequest")
	if f.err != nil {
		return f.err
	}
	f.prs = append(f.prs, pr)
	return nil
}

func (f *fakeService) OnCheck(_ context.Context, _ queue.Repo, c queue.CheckResult) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("OnCheck")
	if f.err != nil {
		return f.err
	}
	f.checks = append(f.checks, c)
	return nil
}

func (f *fakeService) OnPush(_ context.Context, repo queue.Repo, branch, _, sha string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("OnPush")
	if f.err != nil {
		return f.err
	}
	f.pushes = append(f.pushes, pushCall{repo, branch, sha})
	return nil
}

// fakeGitHub records the GitHub calls handlers make.
type fakeGitHub struct {
	mu sync.Mutex

	perms   map[string]string // login → permission ("none" if absent)
	permErr error
	prs     map[int]*queue.PullRequest

	permCalls int
	prReads   int
}

type reaction struct {
	CommentID int64
	Content   string
}

type comment struct {
	Number int
	ID     int64
	Body   string
}

func newFakeGitHub() *fakeGitHub {
	return &fakeGitHub{perms: map[string]string{}, prs: map[int]*queue.PullRequest{}}
}

func (f *fakeGitHub) GetPullRequest(_ context.Context, _ queue.Repo, number int) (*queue.PullRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prReads++
	pr, ok := f.prs[number]
	if !ok {
		return nil, fmt.Errorf("pull #%d: %w", number, queue.ErrPRNotFound)
	}
	cp := *pr
	return &cp, nil
}

func (f *fakeGitHub) Permission(_ context.Context, _ queue.Repo, user string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.permCalls++
	if f.permErr != nil {
		return "", f.permErr
	}
	if p, ok := f.perms[user]; ok {
		return p, nil
	}
	return "none", nil
}

// AddNotice records a notice; comments and reactions are kept apart too.
func (f *fakeService) AddNotice(_ context.Context, n queue.Notice) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notices = append(f.notices, n)
	switch n.Kind {
	case queue.NoticeComment:
		f.comments = append(f.comments, comment{n.PRNumber, 0, n.Body})
	case queue.NoticeReaction:
		f.reactions = append(f.reactions, reaction{n.CommentID, n.Body})
	}
	return nil
}

// Estimates places the active entries of the fake, in order, with a merge
// time an hour apart each.
func (f *fakeService) Estimates(_ context.Context, q *queue.Queue) (map[string]readside.Estimate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]readside.Estimate{}
	for i, e := range f.active {
		out[e.ID] = readside.Estimate{Position: i + 1, Of: len(f.active),
			MergeAt: time.Date(2026, 11, 23, 10+i, 0, 0, 0, time.UTC)}
	}
	return out, nil
}
