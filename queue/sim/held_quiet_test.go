package sim

import (
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// An entry held behind an undecided failure says why in the API, without
// an extra edit of its PR's check run: the hold does not make its surfaces
// due, and the reconciler writes the check run once for the state changes
// (and no status comment: a queued PR has nothing to explain).
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
	reconcile := func() {
		t.Helper()
		if _, err := sc.svc.Reconciler().Pass(sc.ctx); err != nil {
			t.Fatalf("reconcile: %v", err)
		}
	}
	reconcile()
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
	// Two state changes (not_ready, pending) make the PR's surfaces due;
	// the hold does not.
	sf, err := sc.store.GetSurface(sc.ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sf.Want != 2 || sf.Done != 0 {
		t.Errorf("surface want %d done %d, want 2 and 0", sf.Want, sf.Done)
	}
	reconcile()
	if got := sc.world.Calls()["UpsertComment"] - comments; got != 0 {
		t.Errorf("%d status comment writes, want none (a queued PR has nothing to explain: its check run says it)", got)
	}
	if got := sc.world.Calls()["UpsertCheckRun"] - checks; got != 1 {
		t.Errorf("%d check run writes, want 1", got)
	}
	if sf, _ := sc.store.GetSurface(sc.ctx, e.ID); sf.Due() {
		t.Errorf("surface still due after a pass: want %d done %d", sf.Want, sf.Done)
	}
}
