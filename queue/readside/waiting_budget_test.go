package readside

import (
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// budgetAt is a write budget holding writes back until at (zero: not).
type budgetAt struct{ at time.Time }

func (b budgetAt) NextWriteAt(queue.Repo) (time.Time, bool) { return b.at, !b.at.IsZero() }

// An entry whose next step is a GitHub write waits for the installation's
// write budget while it holds writes back; other waits are not changed.
func TestWaitingForTheWriteBudget(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	since := now.Add(-time.Minute)
	repo := queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}
	merge := &queue.Waiting{Reason: queue.WaitMerge, Detail: "its merge", Since: since}
	held := budgetAt{now.Add(40 * time.Second)}
	got := WithWriteBudget(merge, held, repo, now)
	if got.Reason != queue.WaitWriteBudget || !got.Since.Equal(since) ||
		got.Detail != "the GitHub write budget of this installation: next write in ~40 s (for its merge)" {
		t.Errorf("merge under a held budget waits for %+v", got)
	}
	if got := WithWriteBudget(&queue.Waiting{Reason: queue.WaitBuild, Detail: "its test branch to be built"}, budgetAt{now.Add(3 * time.Minute)}, repo, now); got.Reason != queue.WaitWriteBudget ||
		got.Detail != "the GitHub write budget of this installation: next write in ~3 min (for its test branch to be built)" {
		t.Errorf("build under a held budget waits for %+v", got)
	}
	checks := &queue.Waiting{Reason: queue.WaitChecks, Detail: "required check"}
	if got := WithWriteBudget(checks, held, repo, now); got != checks {
		t.Errorf("a check to finish became %+v: CI is no GitHub write", got)
	}
	if got := WithWriteBudget(merge, budgetAt{}, repo, now); got != merge {
		t.Errorf("a free budget changed the wait to %+v", got)
	}
	if got := WithWriteBudget(merge, nil, repo, now); got != merge {
		t.Errorf("no budget changed the wait to %+v", got)
	}
}
