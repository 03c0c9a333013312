package service_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/service"
	"github.com/mergequeue/mq/queue/sim"
)

// recheckWorld is a queue of six PRs whose CI never answers, on a World
// that counts GitHub calls, with a clock the test moves.
type recheckWorld struct {
	t     *testing.T
	ctx   context.Context
	now   time.Time
	store *memstore.Store
	world *sim.World
	svc   *service.Service
	q     *queue.Queue
	prs   []int
}

const recheckInterval = 30 * time.Second

func newRecheckWorld(t *testing.T) *recheckWorld {
	t.Helper()
	w := &recheckWorld{t: t, ctx: context.Background(), now: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC), store: memstore.New()}
	repo := queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}
	w.world = sim.NewWorld(sim.WorldConfig{Repo: repo, Branch: "main", Checks: []string{sim.CICheck}, Now: w.clock})
	w.restart()
	s := queue.DefaultSettings()
	s.Concurrency = 2
	s.RequiredStatuses = []string{sim.CICheck}
	s.CommentsEnabled, s.StatusCheckEnabled = false, false
	q, err := w.svc.CreateQueue(w.ctx, queue.QueueKey{Repo: repo, Branch: "main"}, s)
	if err != nil {
		t.Fatal(err)
	}
	w.q = q
	for i := range 6 {
		n := w.world.OpenPR(sim.PRSpec{Title: fmt.Sprintf("change %d", i)})
		if _, err := w.svc.Submit(w.ctx, queue.SubmitRequest{Key: q.Key, PRNumber: n, Submitter: "dev", Source: "api"}); err != nil {
			t.Fatal(err)
		}
		w.prs = append(w.prs, n)
	}
	return w
}

func (w *recheckWorld) clock() time.Time { return w.now }

// restart replaces the service by a new one over the same store, as a
// process restart (or another replica taking the queue over) does.
func (w *recheckWorld) restart() {
	w.svc = service.NewService(w.store, w.world, service.Options{Now: w.clock, ReconcileEvery: recheckInterval})
}

// reads returns how many PRs the queue reads from GitHub while it syncs
// every reconcile interval for d.
func (w *recheckWorld) reads(d time.Duration) int {
	w.t.Helper()
	before := w.world.Calls()["GetPullRequest"]
	for end := w.now.Add(d); !w.now.After(end); w.now = w.now.Add(recheckInterval) {
		if _, err := w.svc.Sync(w.ctx, w.q.ID); err != nil {
			w.t.Fatalf("sync: %v", err)
		}
	}
	w.now = w.now.Add(-recheckInterval)
	return w.world.Calls()["GetPullRequest"] - before
}

// A queue's reads of its waiting PRs grow with what happens to them, not
// with how long they wait: every PR is read at the first reconcile, then
// again only after ten reconcile intervals without news of it; a PR a
// webhook told of is not read; a restarted process reads every PR again.
func TestReconcileRereadsPRsOnlyWhenNothingWasHeard(t *testing.T) {
	w := newRecheckWorld(t)
	if got := w.reads(0); got < len(w.prs) {
		t.Fatalf("the first reconcile read %d PRs, want every one of the %d", got, len(w.prs))
	}
	if got := w.reads(4*time.Minute + 30*time.Second); got != 0 {
		t.Errorf("nine reconcile passes within ten intervals read %d PRs, want 0", got)
	}
	// A webhook tells of the first PR half way through the next ten
	// intervals: at their end every PR but that one is read again.
	w.now = w.now.Add(recheckInterval)
	if got := w.reads(0); got != len(w.prs) {
		t.Errorf("the reconcile ten intervals after the last read read %d PRs, want %d", got, len(w.prs))
	}
	if got := w.reads(2*time.Minute + 30*time.Second); got != 0 {
		t.Errorf("%d PR reads within ten intervals of the last", got)
	}
	if err := w.svc.OnPullRequest(w.ctx, w.q.Key.Repo, w.world.PR(w.prs[0])); err != nil {
		t.Fatal(err)
	}
	if got := w.reads(2*time.Minute + 30*time.Second); got != len(w.prs)-1 {
		t.Errorf("the reconcile after ten intervals read %d PRs, want %d (all but the one a webhook told of)", got, len(w.prs)-1)
	}
	w.restart()
	w.now = w.now.Add(recheckInterval)
	if got := w.reads(0); got < len(w.prs) {
		t.Errorf("a restarted service's first reconcile read %d PRs, want every one of the %d", got, len(w.prs))
	}
}

// A waiting PR closed on GitHub whose webhook was lost leaves the queue
// within ten reconcile intervals (and one more for the pass).
func TestReconcileNoticesAClosedPRWithoutItsWebhook(t *testing.T) {
	w := newRecheckWorld(t)
	w.reads(0)
	closed := w.prs[len(w.prs)-1] // waiting: concurrency 2 tests the first two
	w.world.ClosePR(closed)       // no webhook reaches the service
	w.reads(10*recheckInterval + recheckInterval)
	e, err := w.store.GetEntry(w.ctx, w.q.ID, closed)
	if err != nil {
		t.Fatal(err)
	}
	if e.Active() {
		t.Errorf("#%d, closed on GitHub, is still %s in the queue after eleven reconcile intervals", closed, e.State)
	}
}
