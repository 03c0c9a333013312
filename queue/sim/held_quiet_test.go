package sim

import (
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// An entry held behind an undecided failure says why in the API, without
// an extra edit of its PR's status comment and check run.
func TestHeldEntrySaysWhyWithoutGitHubCalls(t *testing.T) {
	s := queue.DefaultSettings()
	s.Concurrency, s.CommentsEnabled, s.StatusCheckEnabled = 4, true, true
	sc := newScenario(t, s)
	sc.open(PRSpec{}, "") // #1, undecided
	b := sc.open(PRSpec{}, "")
	sc.sync()
	sc.reportAs(b, false) // #2 fails while #1 is undecided: #2 waits
	if st, _ := sc.state(b); st != queue.StatePendingFailure {
		t.Fatalf("#%d is %s, want pending_failure", b, st)
	}
	comments, checks := sc.world.Calls()["UpsertComment"], sc.world.Calls()["UpsertCheckRun"]
	c := sc.open(PRSpec{}, "") // submitted (not_ready), then admitted (pending), then held
	sc.sync()
	e, err := sc.store.GetEntry(sc.ctx, sc.q.ID, c)
	if err != nil {
		t.Fatal(err)
	}
	if e.State != queue.StatePending || !strings.Contains(e.StateReasonDetail, "waiting until the failure of #2") {
		t.Fatalf("#%d is %s (%s), want pending and held behind #2", c, e.State, e.StateReasonDetail)
	}
	// Two state changes (not_ready, pending) update the PR; the hold does not.
	if got := sc.world.Calls()["UpsertComment"] - comments; got != 2 {
		t.Errorf("%d status comment updates, want 2", got)
	}
	if got := sc.world.Calls()["UpsertCheckRun"] - checks; got != 2 {
		t.Errorf("%d check run updates, want 2", got)
	}
}
