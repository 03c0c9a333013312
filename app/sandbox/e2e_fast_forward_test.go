package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue"
)

// ffBurst is how many PRs the fast-forward landing tests submit at once:
// two batches of 4.
const ffBurst = 8

const (
	prMergeCall   = "PUT /repos/{owner}/{repo}/pulls/{number}/merge"
	refUpdateCall = "PATCH /repos/{owner}/{repo}/git/refs/{ref}"
)

// startFastForwardBurst opens ffBurst PRs, creates a queue landing batches
// of 4 by fast-forward, submits them all and waits for each to merge by the
// queue; it returns the PRs and the call counts before and after.
func startFastForwardBurst(t *testing.T, h *harness, fault *fakegithub.Fault) (prs []int, before, after map[string]int) {
	t.Helper()
	h.mustPost("createQueue", map[string]any{"repo": repoBody(), "targetBranch": "main", "concurrency": 2,
		"batch": true, "batchingMinSize": 4, "mergeMethod": "merge_commit", "fastForwardLanding": true})
	for i := range ffBurst {
		prs = append(prs, h.openPR(fmt.Sprintf("ff-%02d", i), map[string]string{fmt.Sprintf("ff-%02d.txt", i): "x\n"}))
	}
	h.waitWebhooksIdle()
	if fault != nil {
		h.env.Fake.InjectFault(*fault)
	}
	before = h.env.Fake.CallCounts()
	for _, pr := range prs {
		h.submit(pr)
	}
	for _, pr := range prs {
		if got := h.waitState(pr, "merged"); got.StateReason != "merged_by_queue" {
			t.Errorf("#%d merged as %+v", pr, got)
		}
	}
	h.waitWebhooksIdle()
	return prs, before, h.env.Fake.CallCounts()
}

// mergeLog is the queue of main's merge log.
func (h *harness) mergeLog() []queue.MergeRecord {
	h.t.Helper()
	ctx := context.Background()
	st := h.env.App().Store()
	q, err := st.GetQueue(ctx, queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: owner, Name: repo}, Branch: "main"})
	if err != nil {
		h.t.Fatal(err)
	}
	log, err := st.ListMerges(ctx, q.ID, 1000)
	if err != nil {
		h.t.Fatal(err)
	}
	return log
}

// assertLandedByFastForward checks what landing by fast-forward promises:
// GitHub shows each PR merged, in queue order, main's head is exactly a
// commit CI passed (the last tested one), and the merge log has one record
// per PR, in order, each on its own commit of main, the last at main's
// head.
func assertLandedByFastForward(t *testing.T, h *harness, prs []int) {
	t.Helper()
	commits := h.mainCommits()
	last := -1
	for _, pr := range prs {
		i := indexOf(commits, h.mergeCommit(pr))
		if i < 0 || i < last {
			t.Errorf("#%d landed at %d on main, after %d: not merged in queue order", pr, i, last)
		}
		last = i
	}
	head := commits[len(commits)-1]
	tested := false
	for _, r := range h.env.Fake.CIRuns() {
		tested = tested || r.SHA == head && r.Result == "success"
	}
	if !tested {
		t.Errorf("main's head %s is not a commit CI passed", head)
	}
	log := h.mergeLog()
	var got []int
	for _, m := range log {
		got = append(got, m.PRNumber)
		if !slices.Contains(commits, m.After) {
			t.Errorf("the merge log records #%d at %s, not a commit of main", m.PRNumber, m.After)
		}
	}
	if !slices.Equal(got, prs) {
		t.Errorf("merge log %v, want one record per PR in order %v", got, prs)
	}
	if len(log) > 0 && log[len(log)-1].After != head {
		t.Errorf("the last merge record is at %s, main is at %s", log[len(log)-1].After, head)
	}
	// main's history reads as after PR merges: GitHub's messages.
	for i, m := range log {
		want := fmt.Sprintf("Merge pull request #%d from %s/ff-%02d\n\nChange ff-%02d", m.PRNumber, owner, i, i)
		if got := h.commitMessage(m.After); got != want {
			t.Errorf("#%d landed as %s with the message %q, want %q", m.PRNumber, m.After, got, want)
		}
	}
}

// commitMessage reads a commit's message from the fake GitHub's REST API.
func (h *harness) commitMessage(sha string) string {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/api/v3/repos/%s/%s/git/commits/%s", h.env.Fake.URL(), owner, repo, sha), nil)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+h.env.Fake.IssueToken())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var c struct {
		Message string `json:"message"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || resp.StatusCode != http.StatusOK {
		h.t.Fatalf("read commit %s: %d %v", sha, resp.StatusCode, err)
	}
	return c.Message
}

// A burst of PRs through a queue of batches of 4 landing by fast-forward
// (fastForwardLanding): every PR merges once, in order, GitHub shows them
// merged, main's head is the last tested commit, and no PR was merged with
// the PR merge endpoint.
func TestBurstLandsByFastForward(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, Options{})
	prs, before, after := startFastForwardBurst(t, h, nil)
	assertLandedByFastForward(t, h, prs)
	if n := after[prMergeCall] - before[prMergeCall]; n != 0 {
		t.Errorf("%d PUT /pulls/N/merge: the units did not land by fast-forward", n)
	}
}

// With git-built test branches the fast-forward is a git push: landing
// the burst costs no content-creating request for the merges at all.
func TestBurstLandsByFastForwardWithGitBuilds(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, Options{TestBranches: app.TestBranchesGit})
	prs, before, after := startFastForwardBurst(t, h, nil)
	assertLandedByFastForward(t, h, prs)
	for _, call := range []string{prMergeCall, refUpdateCall} {
		if n := after[call] - before[call]; n != 0 {
			t.Errorf("%d %s: with git builds a unit lands by a git push", n, call)
		}
	}
}

// Branch protection refusing the fast-forward: each unit falls back to the
// PR merge endpoint, and every PR still merges once, in order.
func TestFastForwardRefusedFallsBackToPRMerges(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, Options{})
	prs, before, after := startFastForwardBurst(t, h, &fakegithub.Fault{Method: "PATCH", PathContains: "/git/refs/heads/main",
		Status: 422, Message: "Protected branch update failed for refs/heads/main.", Times: -1})
	if n := after[prMergeCall] - before[prMergeCall]; n != ffBurst {
		t.Errorf("%d PUT /pulls/N/merge after the fast-forward was refused, want one per PR (%d)", n, ffBurst)
	}
	if n := after[refUpdateCall] - before[refUpdateCall]; n < 2 {
		t.Errorf("%d ref updates: the units were not offered to land by fast-forward first", n)
	}
	var got []int
	for _, m := range h.mergeLog() {
		got = append(got, m.PRNumber)
	}
	if !slices.Equal(got, prs) {
		t.Errorf("merge log %v, want %v", got, prs)
	}
}

// A fast-forward that GitHub applied but answered with a 502: the outcome
// is read back (the branch is at the tested commit), and the unit is
// recorded merged without a PR merge.
func TestFastForwardUnknownOutcomeIsReadBack(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, Options{})
	prs, before, after := startFastForwardBurst(t, h, &fakegithub.Fault{Method: "PATCH", PathContains: "/git/refs/heads/main",
		Status: 502, ApplyThenFail: true})
	assertLandedByFastForward(t, h, prs)
	if n := after[prMergeCall] - before[prMergeCall]; n != 0 {
		t.Errorf("%d PUT /pulls/N/merge: a fast-forward that applied was merged again", n)
	}
	if n := after[refUpdateCall] - before[refUpdateCall]; n == 0 {
		t.Errorf("no ref update was sent")
	}
}
