package sandbox

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// While GitHub refuses check-run writes the PR's check run falls behind;
// once GitHub recovers the queue brings it up to date, with the final
// state, although the entry has ended and nothing else happens to it.
func TestCheckRunCatchesUpAfterGitHubFailures(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueue(1)
	pr := h.openPR("one", map[string]string{"one.txt": "1\n"})
	got, err := h.env.Fake.PR(owner, repo, pr)
	if err != nil {
		t.Fatal(err)
	}
	head := got.GetHead().GetSHA()
	queueRun := func() *github.CheckRun {
		for _, cr := range h.env.Fake.CheckRuns(owner, repo, head) {
			if strings.HasPrefix(cr.GetName(), "Merge Queue") {
				return cr
			}
		}
		return nil
	}
	// Only the writes fail: the queue still reads its test runs' checks.
	for _, method := range []string{http.MethodPost, http.MethodPatch} {
		h.env.Fake.InjectFault(fakegithub.Fault{Method: method, PathContains: "/check-runs", Status: http.StatusBadGateway, Times: -1})
	}
	h.submit(pr)
	h.waitState(pr, "merged")
	if cr := queueRun(); cr != nil && cr.GetConclusion() == "success" {
		t.Fatalf("the check run was written while GitHub refused it: %+v", cr)
	}
	h.env.Fake.ClearFaults()
	h.waitFor("the check run to show the merge", func() bool {
		cr := queueRun()
		return cr != nil && cr.GetStatus() == "completed" && cr.GetConclusion() == "success"
	}, nil)
}
