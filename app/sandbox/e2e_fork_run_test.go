package sandbox

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers/api"
	"github.com/mergequeue/mq/queue"
)

// forker owns the fork the fork PRs of these tests come from.
const forker = "forker"

// The fake GitHub's routes a forked run confirmation calls.
const (
	runRoute  = "GET /repos/{owner}/{repo}/actions/runs/{id}"
	pullRoute = "GET /repos/{owner}/{repo}/pulls/{number}"
)

// openForkPR opens a PR from branch of forkOwner's fork of the repository
// (the fake keeps the branch in the repository itself).
func (h *harness) openForkPR(branch, forkOwner string, files map[string]string) int {
	h.t.Helper()
	if _, err := h.env.Fake.Commit(owner, repo, branch, files, "change "+branch); err != nil {
		h.t.Fatalf("commit %s: %v", branch, err)
	}
	n, err := h.env.Fake.OpenPR(owner, repo, fakegithub.PROptions{Head: branch, Base: "main", Title: "Change " + branch,
		Author: forkOwner, HeadRepo: forkOwner + "/" + repo})
	if err != nil {
		h.t.Fatalf("open PR %s: %v", branch, err)
	}
	return n
}

// forkRun is the in-progress pull_request run id of a PR from forker's
// fork, on branch at sha.
func forkRun(id int64, sha, branch string) fakegithub.WorkflowRun {
	return fakegithub.WorkflowRun{ID: id, HeadSHA: sha, HeadBranch: branch, Status: "in_progress",
		Event: "pull_request", HeadRepo: forker + "/" + repo}
}

func (h *harness) addForkRun(run fakegithub.WorkflowRun) {
	h.t.Helper()
	if err := h.env.Fake.AddWorkflowRun(owner, repo, run); err != nil {
		h.t.Fatal(err)
	}
}

// forkUpload sends setImpactedTargets for pr at sha with run runID as the
// only credential.
func (h *harness) forkUpload(runID int64, pr int, sha string, targets any) (int, string, http.Header) {
	h.t.Helper()
	return h.sessionRaw(http.MethodPost, "/v1/setImpactedTargets",
		sessionBody(map[string]any{"pr": map[string]any{"number": pr, "sha": sha}, "impactedTargets": targets}),
		map[string]string{api.ForkedRunHeader: strconv.FormatInt(runID, 10)})
}

// confirmCalls counts the fake GitHub's calls a confirmation makes.
func (h *harness) confirmCalls() int {
	return h.env.Fake.Calls(runRoute) + h.env.Fake.Calls(pullRoute)
}

// storedTargets reads what the queue of main holds for pr.
func (h *harness) storedTargets(pr int) *queue.Targets {
	h.t.Helper()
	ctx := context.Background()
	q, _, err := h.env.App().Reads().GetQueue(ctx, queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: owner, Name: repo}, Branch: "main"})
	if err != nil {
		h.t.Fatal(err)
	}
	t, err := h.env.App().Store().GetTargets(ctx, q.ID, pr)
	if err != nil {
		h.t.Fatalf("targets of #%d: %v", pr, err)
	}
	return t
}

// Issue #15: twenty requests carrying only x-forked-workflow-run-id, for a
// repository without a queue and for one GitHub does not have, cost no
// GitHub call and store nothing.
func TestForkRunWithoutQueueCostsNoGitHubCall(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	sha := strings.Repeat("c", 40)
	h.addForkRun(forkRun(300, sha, "x"))
	before := h.githubCalls()
	for i := range 20 {
		body := sessionBody(map[string]any{"pr": map[string]any{"number": 1, "sha": sha}, "impactedTargets": "ALL"})
		want := `no queue for branch "main" of acme/widgets`
		if i%2 == 1 {
			body["repo"] = map[string]any{"host": "github.com", "owner": "nobody", "name": fmt.Sprintf("nothing%d", i)}
			want = fmt.Sprintf(`no queue for branch "main" of nobody/nothing%d`, i)
		}
		status, text, _ := h.sessionRaw(http.MethodPost, "/v1/setImpactedTargets", body,
			map[string]string{api.ForkedRunHeader: strconv.Itoa(300 + i)})
		if status != http.StatusNotFound || text != want+"\n" {
			t.Errorf("request %d: %d %q, want 404 %q", i, status, text, want)
		}
	}
	h.wantNoGitHubCalls(t, before)
}

// A burst of forked run requests for one repository, each naming another
// run, is cut with 429 and Retry-After once the repository's budget of
// confirmations is spent; a refused request costs no GitHub call.
func TestForkRunBurstIsRateLimited(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueue(1)
	p := h.openForkPR("fix", forker, map[string]string{"fix.txt": "1\n"})
	sha := headSHA(t, h, p)
	limited := 0
	for i := range 40 {
		before := h.confirmCalls()
		status, text, header := h.forkUpload(int64(5000+i), p, sha, []string{})
		switch status {
		case http.StatusUnauthorized: // an unknown run: GitHub was asked
		case http.StatusTooManyRequests:
			limited++
			if header.Get("Retry-After") == "" || !strings.Contains(text, "too many workflow runs to confirm with GitHub for acme/widgets") {
				t.Errorf("request %d: 429 %q with Retry-After %q", i, text, header.Get("Retry-After"))
			}
			if got := h.confirmCalls(); got != before {
				t.Errorf("request %d was refused with 429 but made %d GitHub calls", i, got-before)
			}
		default:
			t.Fatalf("request %d: %d %q", i, status, text)
		}
	}
	if limited < 10 {
		t.Errorf("%d of 40 requests were limited, want at least 10 (the budget is %d)", limited, api.DefaultForkRunLimits.PerRepository.Burst)
	}
}

// Repeated uploads from one CI run within a minute cost one confirmation:
// the run and the PR are read once; a refusal is kept too.
func TestForkRunConfirmationIsCached(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueue(1)
	p := h.openForkPR("fix", forker, map[string]string{"fix.txt": "1\n"})
	sha := headSHA(t, h, p)
	h.addForkRun(forkRun(600, sha, "fix"))
	finished := forkRun(601, sha, "fix")
	finished.Status, finished.Conclusion = "completed", "success"
	h.addForkRun(finished)
	before := h.confirmCalls()
	for i := range 5 {
		if status, text, _ := h.forkUpload(600, p, sha, []string{fmt.Sprintf("//t%d", i)}); status != http.StatusOK {
			t.Fatalf("upload %d: %d %q", i, status, text)
		}
	}
	if got := h.confirmCalls() - before; got != 2 {
		t.Errorf("5 uploads of one run made %d GitHub calls, want 2 (the run and the PR, once)", got)
	}
	if got := h.storedTargets(p).List; len(got) != 1 || got[0] != "//t4" {
		t.Errorf("stored targets %v, want the last upload's", got)
	}
	before = h.confirmCalls()
	for i := range 3 {
		if status, _, _ := h.forkUpload(601, p, sha, []string{}); status != http.StatusUnauthorized {
			t.Fatalf("finished run, upload %d: %d, want 401", i, status)
		}
	}
	if got := h.confirmCalls() - before; got != 1 {
		t.Errorf("3 uploads of a finished run made %d GitHub calls, want 1", got)
	}
}

// Issue #15: only the fork PR's own pull_request run vouches for it, and
// it cannot replace targets set with a token for the same head; once the
// head moves, the token's targets are stale and a fork upload for the new
// head replaces them.
func TestForkRunMustBeTheForkPRsOwnRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueue(1)
	branchPR := h.openPR("inside", map[string]string{"inside.txt": "1\n"})
	forkPR := h.openForkPR("fix", forker, map[string]string{"fix.txt": "1\n"})
	branchSHA, forkSHA := headSHA(t, h, branchPR), headSHA(t, h, forkPR)

	// A pull_request run of a branch of the repository itself.
	h.addForkRun(fakegithub.WorkflowRun{ID: 701, HeadSHA: branchSHA, HeadBranch: "inside", Status: "in_progress",
		Event: "pull_request", PullRequests: []int{branchPR}})
	// A push run on the fork at the fork PR's head.
	push := forkRun(702, forkSHA, "fix")
	push.Event = "push"
	h.addForkRun(push)
	// Another fork's PR run, with the same commit pushed to it.
	other := forkRun(703, forkSHA, "fix")
	other.HeadRepo = "mallory/" + repo
	h.addForkRun(other)
	for _, tc := range []struct {
		name string
		run  int64
		pr   int
		sha  string
	}{
		{"run from the base repository", 701, branchPR, branchSHA},
		{"push run", 702, forkPR, forkSHA},
		{"another fork's run", 703, forkPR, forkSHA},
	} {
		status, text, _ := h.forkUpload(tc.run, tc.pr, tc.sha, []string{})
		if status != http.StatusUnauthorized || !strings.Contains(text, fmt.Sprintf("workflow run %d is not", tc.run)) {
			t.Errorf("%s: %d %q, want 401", tc.name, status, text)
		}
	}

	// A token sets the fork PR's targets; its own run cannot replace them.
	h.mustPost("setImpactedTargets", sessionBody(map[string]any{"pr": map[string]any{"number": forkPR, "sha": forkSHA},
		"impactedTargets": []string{"//all:tests"}}))
	h.addForkRun(forkRun(704, forkSHA, "fix"))
	status, text, _ := h.forkUpload(704, forkPR, forkSHA, []string{})
	if status != http.StatusForbidden || !strings.Contains(text, "set with an API token; a forked workflow run cannot replace them") {
		t.Errorf("fork upload over a token's targets: %d %q, want 403", status, text)
	}
	if got := h.storedTargets(forkPR); got.Source != queue.TargetsFromToken || len(got.List) != 1 || got.List[0] != "//all:tests" {
		t.Errorf("targets after the refused upload: %+v, want the token's", got)
	}

	// New commits: the token's targets are for an old head.
	newSHA, err := h.env.Fake.Commit(owner, repo, "fix", map[string]string{"fix.txt": "2\n"}, "more")
	if err != nil {
		t.Fatal(err)
	}
	h.addForkRun(forkRun(705, newSHA, "fix"))
	if status, text, _ := h.forkUpload(705, forkPR, newSHA, []string{"//fix:test"}); status != http.StatusOK {
		t.Fatalf("fork upload for the new head: %d %q, want 200", status, text)
	}
	if got := h.storedTargets(forkPR); got.Source != queue.TargetsFromForkRun || got.SHA != newSHA || len(got.List) != 1 {
		t.Errorf("targets after the head moved: %+v, want the fork run's for %s", got, newSHA)
	}
}
