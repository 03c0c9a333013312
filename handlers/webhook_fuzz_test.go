package handlers

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/inbox"
	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/textsafe"
)

// FuzzWebhook feeds any payload, under any event name, to the handler the
// processor would dispatch it to (called directly, so that a panic is not
// turned into an error). With fakes that never fail, a handler returns nil
// or a Permanent error (a malformed payload is never retried), always one
// for a handled event whose payload is not JSON; and everything it passes
// on is sane: repositories on the configured host with an owner and a
// name, PR numbers above zero, checks with a SHA, a name, a known state and
// only a validated URL (textsafe.CIURL), pushes of a branch to a commit.
func FuzzWebhook(f *testing.F) {
	// Plain go test runs GitHub's examples as they are; fuzzing starts from
	// the same examples cut down to the members the handlers read, since
	// minimizing a 20 kB payload takes longer than fuzzing it.
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	dirs, err := os.ReadDir(examplesDir)
	if err != nil {
		f.Fatal(err)
	}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(examplesDir, dir.Name(), "*.json"))
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			payload, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			if fuzzing {
				payload = readMembers(f, payload)
			}
			f.Add(dir.Name(), payload)
		}
	}
	f.Fuzz(func(t *testing.T, event string, payload []byte) {
		svc := &checkedService{fakeService: newFakeService()}
		svc.addQueue(queue.QueueKey{Repo: helloWorld, Branch: "main"}, queue.DefaultSettings())
		svc.addQueue(queue.QueueKey{Repo: helloWorld, Branch: "master"}, queue.DefaultSettings())
		gh := &checkedGitHub{fakeGitHub: newFakeGitHub(), problems: &svc.problems}
		svc.gh = gh
		gh.perms = map[string]string{"Codertocat": "admin", "octocat": "write", "writer": "write", "reader": "read"}
		p := inbox.NewProcessor(newFakeInbox(), New(testConfig(), svc, svc, gh), zerolog.Nop())
		h, ok := p.Handler(event)
		if !ok {
			return // no handler: the processor marks it done unread
		}
		err := h.Handle(context.Background(), event, "fuzz", payload)
		for _, problem := range svc.problems {
			t.Errorf("%s payload %q: %s", event, payload, problem)
		}
		if err != nil && (!IsPermanent(err) || err.Error() == "") {
			t.Errorf("%s payload %q: error %q is not Permanent", event, payload, err)
		}
		if _, ignored := h.(*IgnoredHandler); !ignored && err == nil && !json.Valid(payload) {
			t.Errorf("%s payload %q is not JSON but was accepted", event, payload)
		}
	})
}

// readMembers keeps of a payload only the members some handler reads.
func readMembers(t testing.TB, payload []byte) []byte {
	t.Helper()
	user := map[string]any{"login": nil, "name": nil}
	ref := map[string]any{"ref": nil, "sha": nil, "repo": map[string]any{"full_name": nil}}
	read := map[string]any{
		"action": nil, "number": nil, "sha": nil, "state": nil, "context": nil, "target_url": nil,
		"updated_at": nil, "created_at": nil, "ref": nil, "after": nil, "deleted": nil,
		"repository":   map[string]any{"name": nil, "owner": user},
		"sender":       user,
		"installation": map[string]any{"id": nil},
		"label":        map[string]any{"name": nil},
		"issue":        map[string]any{"number": nil, "pull_request": nil},
		"comment":      map[string]any{"id": nil, "body": nil, "user": user},
		"pull_request": map[string]any{"number": nil, "title": nil, "body": nil, "state": nil, "draft": nil,
			"merged": nil, "merge_commit_sha": nil, "mergeable": nil, "mergeable_state": nil, "user": user,
			"head": ref, "base": ref, "updated_at": nil},
		"check_run": map[string]any{"name": nil, "head_sha": nil, "status": nil, "conclusion": nil,
			"html_url": nil, "details_url": nil, "started_at": nil, "completed_at": nil},
	}
	var v any
	if err := json.Unmarshal(payload, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(keep(v, read))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keep returns v with only the object members named in read (recursively;
// a nil entry keeps the member whole).
func keep(v any, read map[string]any) any {
	obj, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, sub := range read {
		x, ok := obj[k]
		if !ok {
			continue
		}
		if m, ok := sub.(map[string]any); ok {
			x = keep(x, m)
		}
		out[k] = x
	}
	return out
}

// problems collects what a checked fake saw that a handler should never
// pass on.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

func (p *problems) repo(call string, r queue.Repo) {
	if r.Host != queue.DefaultHost || r.Owner == "" || r.Name == "" {
		p.add("%s: repository %+v", call, r)
	}
}

func (p *problems) pr(call string, r queue.Repo, number int) {
	p.repo(call, r)
	if number <= 0 {
		p.add("%s: pull request #%d", call, number)
	}
}

func (p *problems) time(call string, at time.Time) {
	if !at.IsZero() && at.Location() != time.UTC {
		p.add("%s: time %v is not UTC", call, at)
	}
}

// checkedService is fakeService checking every call a handler makes.
type checkedService struct {
	*fakeService
	problems problems
}

func (s *checkedService) GetQueue(ctx context.Context, key queue.QueueKey) (*queue.Queue, []*queue.Entry, error) {
	s.problems.repo("GetQueue", key.Repo)
	return s.fakeService.GetQueue(ctx, key)
}

func (s *checkedService) Submit(ctx context.Context, req queue.SubmitRequest) (*queue.Entry, error) {
	s.problems.pr("Submit", req.Key.Repo, req.PRNumber)
	if req.Submitter == "" || (req.Source != "label" && req.Source != "comment") {
		s.problems.add("Submit: submitter %q, source %q", req.Submitter, req.Source)
	}
	return s.fakeService.Submit(ctx, req)
}

func (s *checkedService) CommandTarget(ctx context.Context, repo queue.Repo, n int) (*queue.CommandTarget, error) {
	s.problems.pr("CommandTarget", repo, n)
	return s.fakeService.CommandTarget(ctx, repo, n)
}

func (s *checkedService) SubmitTarget(ctx context.Context, t *queue.CommandTarget, req queue.SubmitRequest) (*queue.Entry, error) {
	s.problems.pr("SubmitTarget", t.Repo, t.PR.Number)
	if req.Submitter == "" || req.Source != "comment" {
		s.problems.add("SubmitTarget: submitter %q, source %q", req.Submitter, req.Source)
	}
	return s.fakeService.SubmitTarget(ctx, t, req)
}

func (s *checkedService) CancelPR(ctx context.Context, repo queue.Repo, n int, reason queue.Reason, detail string) ([]*queue.Entry, error) {
	s.problems.pr("CancelPR", repo, n)
	return s.fakeService.CancelPR(ctx, repo, n, reason, detail)
}

func (s *checkedService) Restart(ctx context.Context, key queue.QueueKey, n int) (*queue.Entry, error) {
	s.problems.pr("Restart", key.Repo, n)
	return s.fakeService.Restart(ctx, key, n)
}

func (s *checkedService) ActiveEntries(ctx context.Context, repo queue.Repo, n int) ([]*queue.Entry, error) {
	s.problems.pr("ActiveEntries", repo, n)
	return s.fakeService.ActiveEntries(ctx, repo, n)
}

func (s *checkedService) OnPullRequest(ctx context.Context, repo queue.Repo, pr queue.PullRequest) error {
	s.problems.pr("OnPullRequest", repo, pr.Number)
	s.problems.time("OnPullRequest", pr.ReadAt)
	return s.fakeService.OnPullRequest(ctx, repo, pr)
}

func (s *checkedService) OnCheck(ctx context.Context, repo queue.Repo, c queue.CheckResult) error {
	s.problems.repo("OnCheck", repo)
	s.problems.time("OnCheck", c.UpdatedAt)
	if c.SHA == "" || c.Name == "" || (c.Kind != queue.KindCheckRun && c.Kind != queue.KindStatus) {
		s.problems.add("OnCheck: %+v", c)
	}
	switch c.State {
	case queue.CheckPending, queue.CheckSuccess, queue.CheckFailure:
	default:
		s.problems.add("OnCheck: state %q", c.State)
	}
	if c.URL != "" && textsafe.CIURL(c.URL) != c.URL {
		s.problems.add("OnCheck: URL %q is not a validated CI URL", c.URL)
	}
	return s.fakeService.OnCheck(ctx, repo, c)
}

func (s *checkedService) AddNotice(ctx context.Context, n queue.Notice) error {
	s.problems.pr("AddNotice", n.Repo, n.PRNumber)
	switch {
	case n.Key == "":
		s.problems.add("AddNotice: no key")
	case n.Kind == queue.NoticeComment && n.Body == "":
		s.problems.add("AddNotice: empty comment")
	case n.Kind == queue.NoticeReaction && n.CommentID <= 0:
		s.problems.add("AddNotice: reaction to comment %d", n.CommentID)
	}
	return s.fakeService.AddNotice(ctx, n)
}

func (s *checkedService) OnPush(ctx context.Context, repo queue.Repo, branch, before, sha string) error {
	s.problems.repo("OnPush", repo)
	if branch == "" || sha == "" || sha == zeroSHA {
		s.problems.add("OnPush: branch %q, sha %q", branch, sha)
	}
	return s.fakeService.OnPush(ctx, repo, branch, before, sha)
}

// checkedGitHub is fakeGitHub checking every call, where every PR numbered
// above zero exists and targets main.
type checkedGitHub struct {
	*fakeGitHub
	problems *problems
}

func (g *checkedGitHub) GetPullRequest(_ context.Context, repo queue.Repo, n int) (*queue.PullRequest, error) {
	g.problems.pr("GetPullRequest", repo, n)
	if n <= 0 {
		return nil, fmt.Errorf("pull #%d: %w", n, queue.ErrPRNotFound)
	}
	return &queue.PullRequest{Number: n, PRFacts: queue.PRFacts{BaseBranch: "main", Open: true}}, nil
}

func (g *checkedGitHub) Permission(ctx context.Context, repo queue.Repo, user string) (string, error) {
	g.problems.repo("Permission", repo)
	if user == "" {
		g.problems.add("Permission: no user")
	}
	return g.fakeGitHub.Permission(ctx, repo, user)
}
