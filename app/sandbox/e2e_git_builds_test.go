package sandbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mergequeue/mq/app"
)

// gitBurst is how many PRs TestBurstWithGitBuiltTestBranches submits at once.
const gitBurst = 12

// A burst of PRs through a queue of concurrency 4 whose test branches are
// built with git (github.test_branches: git): every PR merges once, in
// queue order, each landed tree is one CI passed, and no test branch was
// built with the merges API or a scratch ref: the builds reached GitHub
// as git pushes only.
func TestBurstWithGitBuiltTestBranches(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, Options{TestBranches: app.TestBranchesGit})
	h.createQueue(4)
	var prs []int
	for i := range gitBurst {
		prs = append(prs, h.openPR(fmt.Sprintf("git-%02d", i), map[string]string{fmt.Sprintf("git-%02d.txt", i): "x\n"}))
	}
	h.waitWebhooksIdle()
	initial := len(h.mainCommits())
	before := h.env.Fake.CallCounts()
	for _, pr := range prs {
		h.submit(pr)
	}
	for _, pr := range prs {
		if got := h.waitState(pr, "merged"); got.StateReason != "merged_by_queue" {
			t.Errorf("#%d merged as %+v", pr, got)
		}
	}
	commits := h.mainCommits()
	if got := len(commits) - initial; got != gitBurst {
		t.Errorf("main gained %d commits for %d PRs", got, gitBurst)
	}
	last := initial - 1
	for _, pr := range prs {
		i := indexOf(commits, h.mergeCommit(pr))
		if i <= last {
			t.Errorf("#%d landed at %d on main, after %d: not in queue order", pr, i, last)
		}
		last = i
	}
	h.assertLandedTreesPassed(initial)
	left := func() []string { return h.env.Fake.BranchesWithPrefix(owner, repo, "mq-") }
	h.waitFor("no test branch left", func() bool { return len(left()) == 0 }, func() string { return fmt.Sprint(left()) })

	after := h.env.Fake.CallCounts()
	delta := func(key string) int { return after[key] - before[key] }
	if n := delta("POST /repos/{owner}/{repo}/merges"); n != 0 {
		t.Errorf("%d POST /merges: test branches were built with the merges API", n)
	}
	if n := delta("POST /repos/{owner}/{repo}/git/refs"); n != 0 {
		t.Errorf("%d ref creations: a git build needs no scratch ref", n)
	}
	if n := delta("GIT POST /{owner}/{repo}.git/git-receive-pack"); n < gitBurst {
		t.Errorf("%d pushes for %d test runs", n, gitBurst)
	}
	var writes []string
	for k := range after {
		if d := delta(k); d != 0 && !strings.HasPrefix(k, "GET ") && !strings.HasPrefix(k, "GIT ") && !strings.Contains(k, "access_tokens") {
			writes = append(writes, fmt.Sprintf("%d %s", d, k))
		}
	}
	t.Logf("content-creating requests for %d merged PRs: %v", gitBurst, writes)
}
