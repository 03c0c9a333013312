package service

import (
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// A test commit that may land by fast-forward carries GitHub's merge
// message (or the PR's merge-commit-title:), and a unit tested again gets
// a different message, so a new commit.
func TestLandingHeadMessage(t *testing.T) {
	t.Parallel()
	got := landingHeadMessage(12, "octo", "feature/x", "Add widgets", "Some text", 1)
	if want := "Merge pull request #12 from octo/feature/x\n\nAdd widgets\n"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	got = landingHeadMessage(12, "octo", "feature/x", "Add widgets", "text\nmerge-commit-title: Widgets (#12)\n", 1)
	if !strings.HasPrefix(got, "Widgets (#12)\n\nAdd widgets\n") {
		t.Errorf("with merge-commit-title: %q", got)
	}
	again := landingHeadMessage(12, "octo", "feature/x", "Add widgets", "Some text", 2)
	if again == landingHeadMessage(12, "octo", "feature/x", "Add widgets", "Some text", 1) || !strings.HasSuffix(again, "\n\nMerge-Queue-Attempt: 2\n") {
		t.Errorf("a second attempt's message %q does not differ by a trailer", again)
	}
}

// Only a tested commit made of the unit's merge commits, in order, on top
// of the target head may land by fast-forward.
func TestUnitChainMismatch(t *testing.T) {
	t.Parallel()
	unit := []*queue.Entry{{PRNumber: 1, PRSHA: "h1"}, {PRNumber: 2, PRSHA: "h2"}}
	good := []queue.ChainCommit{{SHA: "t2", Parents: []string{"t1", "h2"}}, {SHA: "t1", Parents: []string{"base", "h1"}}}
	if why := unitChainMismatch(good, unit, "base"); why != "" {
		t.Fatalf("the unit's own chain refused: %s", why)
	}
	for name, tc := range map[string]struct {
		chain  []queue.ChainCommit
		before string
	}{
		"another base":        {good, "other"},
		"heads swapped":       {[]queue.ChainCommit{{SHA: "t2", Parents: []string{"t1", "h1"}}, {SHA: "t1", Parents: []string{"base", "h2"}}}, "base"},
		"a commit ahead":      {[]queue.ChainCommit{{SHA: "t2", Parents: []string{"t1", "h2"}}, {SHA: "t1", Parents: []string{"t0", "h1"}}}, "base"},
		"chain too short":     {good[:1], "base"},
		"not a merge commit":  {[]queue.ChainCommit{{SHA: "t2", Parents: []string{"t1"}}, good[1]}, "base"},
		"a third parent head": {[]queue.ChainCommit{{SHA: "t2", Parents: []string{"t1", "h2", "h3"}}, good[1]}, "base"},
	} {
		if why := unitChainMismatch(tc.chain, unit, tc.before); why == "" {
			t.Errorf("%s: accepted", name)
		}
	}
}
