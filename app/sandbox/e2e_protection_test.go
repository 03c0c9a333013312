package sandbox

import (
	"strings"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// With branch protection's required checks applying to PR heads (as on
// GitHub), a PR whose own CI has not passed waits not_ready, saying so,
// and is tested and merged once it has.
func TestPRBlockedByBranchProtectionWaits(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	if err := h.env.Fake.SetPRChecksEnforced(owner, repo, true); err != nil {
		t.Fatal(err)
	}
	h.createQueue(1)
	pr := h.openPR("blocked", map[string]string{"b.txt": "b\n"})
	h.submit(pr)
	waiting := h.waitState(pr, "not_ready")
	h.waitFor("the entry to say branch protection blocks it", func() bool {
		s, _ := h.entry(pr)
		waiting = s
		return strings.Contains(s.StateReasonDetail, "branch protection")
	}, func() string { return waiting.StateReasonDetail })
	got, err := h.env.Fake.PR(owner, repo, pr)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.env.Fake.SetStatus(owner, repo, got.GetHead().GetSHA(), "ci/test", "success"); err != nil {
		t.Fatal(err)
	}
	h.waitState(pr, "merged")
}
