package sandbox

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// testPRs returns the PRs of the demo repository whose head is a test
// branch (mq-merge/), by number.
func (h *harness) testPRs() map[int]*github.PullRequest {
	h.t.Helper()
	out := map[int]*github.PullRequest{}
	for n := 1; n <= 30; n++ {
		pr, err := h.env.Fake.PR(owner, repo, n)
		if err != nil {
			continue
		}
		if strings.HasPrefix(pr.GetHead().GetRef(), "mq-merge/") {
			out[n] = pr
		}
	}
	return out
}

// checkRunTitle is the title of the newest Merge Queue check run on a
// PR's head.
func (h *harness) checkRunTitle(pr int) string {
	h.t.Helper()
	p, err := h.env.Fake.PR(owner, repo, pr)
	if err != nil {
		h.t.Fatal(err)
	}
	runs := h.env.Fake.CheckRunsNamed(owner, repo, p.GetHead().GetSHA(), "Merge Queue (main)")
	if len(runs) == 0 {
		return ""
	}
	return runs[len(runs)-1].GetOutput().GetTitle()
}

// A batch run of a queue with createPrsForTestingBranches opens one draft
// test PR, titled after the PRs it tests, closed when the run ends; while it
// runs, the PRs behind say their position and when they are expected to
// merge (check run, /mq status, the API), and the PRs testing say when
// their run is expected to finish.
func TestTestPRsPositionsAndETAs(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueue(1)
	h.mustPost("updateQueue", map[string]any{"repo": repoBody(), "targetBranch": "main",
		"createPrsForTestingBranches": true})

	// A first PR merges: the queue learns its CI duration.
	p0 := h.openPR("zero", map[string]string{"zero.txt": "0\n"})
	h.submit(p0)
	h.waitState(p0, "merged")
	h.waitFor("the first test PR to be closed", func() bool {
		prs := h.testPRs()
		return len(prs) == 1 && prs[firstKey(prs)].GetState() == "closed"
	}, nil)

	h.mustPost("updateQueue", map[string]any{"repo": repoBody(), "targetBranch": "main",
		"batch": true, "batchingMinSize": 2, "batchingMaxSize": 2})
	h.env.Fake.SetCIHold(true)
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	p2 := h.openPR("two", map[string]string{"two.txt": "2\n"})
	p3 := h.openPR("three", map[string]string{"three.txt": "3\n"})
	h.submit(p1)
	h.submit(p2)
	h.mustPost("submitPullRequest", map[string]any{"repo": repoBody(), "targetBranch": "main",
		"pr": map[string]any{"number": p3}, "noBatch": true}) // tested alone, without waiting for a batch
	h.waitState(p1, "testing")
	h.waitState(p2, "testing")

	var batchPR *github.PullRequest
	h.waitFor("one draft test PR for the batch", func() bool {
		for _, pr := range h.testPRs() {
			if pr.GetState() == "open" {
				batchPR = pr
			}
		}
		return batchPR != nil
	}, func() string { return fmt.Sprintf("test PRs: %d", len(h.testPRs())) })
	if want := fmt.Sprintf("merge queue: #%d, #%d", p1, p2); batchPR.GetTitle() != want || !batchPR.GetDraft() ||
		batchPR.GetBase().GetRef() != "main" {
		t.Errorf("test PR %q (draft %v, base %s), want a draft into main titled %q",
			batchPR.GetTitle(), batchPR.GetDraft(), batchPR.GetBase().GetRef(), want)
	}
	for _, want := range []string{fmt.Sprintf("- #%d Change one", p1), fmt.Sprintf("- #%d Change two", p2), "Do not merge it"} {
		if !strings.Contains(batchPR.GetBody(), want) {
			t.Errorf("test PR body lacks %q:\n%s", want, batchPR.GetBody())
		}
	}

	// Where each PR stands.
	h.waitFor("#3's check run to show its position and ETA", func() bool {
		title := h.checkRunTitle(p3)
		return strings.Contains(title, "3 of 3") && strings.Contains(title, "merge around")
	}, func() string { return "title: " + h.checkRunTitle(p3) })
	// #1's check run shows when its run ends, or (when it was written
	// before #1's run started: testing having started is an informational
	// edit, made five minutes after the last at the earliest) its position
	// and ETA.
	h.waitFor("#1's check run to show when its run ends, or its position and ETA", func() bool {
		title := h.checkRunTitle(p1)
		return strings.Contains(title, "expected to finish around") || strings.Contains(title, "1 of ") && strings.Contains(title, "merge around")
	}, func() string { return "title: " + h.checkRunTitle(p1) })
	_, out := h.post("getSubmittedPullRequest", map[string]any{"repo": repoBody(), "targetBranch": "main", "pr": map[string]any{"number": p3}})
	var sub map[string]any
	if err := json.Unmarshal(out, &sub); err != nil {
		t.Fatal(err)
	}
	if sub["queuePosition"] != 3.0 || sub["estimatedMergeAt"] == nil {
		t.Errorf("getSubmittedPullRequest #%d: position %v, estimatedMergeAt %v; want 3 and a time", p3, sub["queuePosition"], sub["estimatedMergeAt"])
	}
	if err := h.env.Fake.SetPermission(owner, repo, "alice", "write"); err != nil {
		t.Fatal(err)
	}
	commentID, err := h.env.Fake.Comment(owner, repo, p3, "alice", "/mq status")
	if err != nil {
		t.Fatal(err)
	}
	h.waitFor("the /mq status reply", func() bool {
		for _, c := range h.env.Fake.Comments(owner, repo, p3) {
			if c.GetID() != commentID && strings.Contains(c.GetBody(), "position 3 of 3") &&
				strings.Contains(c.GetBody(), "expected to merge around") {
				return true
			}
		}
		return false
	}, nil)
	sRun := h.entryRun(p1)
	_, details := h.post("getMergeQueueTestingDetails", map[string]any{"repo": repoBody(), "targetBranch": "main", "testRunId": sRun})
	var d map[string]any
	if err := json.Unmarshal(details, &d); err != nil {
		t.Fatal(err)
	}
	if d["testPrNumber"] != float64(batchPR.GetNumber()) {
		t.Errorf("testing details testPrNumber %v, want %d", d["testPrNumber"], batchPR.GetNumber())
	}

	h.env.Fake.SetCIHold(false)
	h.env.Fake.ReleaseCI()
	for _, p := range []int{p1, p2, p3} {
		h.waitState(p, "merged")
	}
	h.waitFor("every test PR closed", func() bool {
		for _, pr := range h.testPRs() {
			if pr.GetState() != "closed" {
				return false
			}
		}
		return true
	}, nil)
	if n := len(h.testPRs()); n != 3 {
		t.Errorf("%d test PRs, want 3 (one per run: #%d alone, the batch, #%d alone)", n, p0, p3)
	}
}

func (h *harness) entryRun(pr int) string {
	h.t.Helper()
	s, ok := h.entry(pr)
	if !ok || s.TestRunID == "" {
		h.t.Fatalf("#%d has no test run: %+v", pr, s)
	}
	return s.TestRunID
}

func firstKey(m map[int]*github.PullRequest) int {
	for k := range m {
		return k
	}
	return 0
}
