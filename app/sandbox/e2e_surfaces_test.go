package sandbox

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// While GitHub refuses comment writes the PR's status comment falls behind;
// once GitHub recovers the queue brings it up to date, with the final state,
// although the entry has ended and nothing else happens to it.
func TestStatusCommentCatchesUpAfterGitHubFailures(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueue(1)
	pr := h.openPR("one", map[string]string{"one.txt": "1\n"})
	h.env.Fake.InjectFault(fakegithub.Fault{PathContains: "/comments", Status: http.StatusBadGateway, Times: -1})
	got, err := h.env.Fake.PR(owner, repo, pr)
	if err != nil {
		t.Fatal(err)
	}
	head := got.GetHead().GetSHA()
	h.submit(pr)
	h.waitState(pr, "merged")
	// The check run is updated after the comment: once it shows the merge,
	// the comment update for it was tried (and refused).
	h.waitFor("the check run to show the merge", func() bool {
		for _, cr := range h.env.Fake.CheckRuns(owner, repo, head) {
			if strings.HasPrefix(cr.GetName(), "Merge Queue") && cr.GetConclusion() == "success" {
				return true
			}
		}
		return false
	}, nil)
	h.env.Fake.ClearFaults()
	h.waitFor("the status comment to say merged", func() bool {
		for _, c := range h.env.Fake.Comments(owner, repo, pr) {
			if strings.Contains(c.GetBody(), "merge-queue-status") && strings.Contains(c.GetBody(), "Merged") {
				return true
			}
		}
		return false
	}, nil)
}
