package service_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/service"
	"github.com/mergequeue/mq/queue/sim"
)

// simRepo is the repository of the tests on a sim.World.
var simRepo = queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}

// simWorld is a sim.World of simRepo (target "main", one required check)
// and one memstore that every replica of a test shares, with a clock the
// test moves (safe to read from a replica's goroutines).
type simWorld struct {
	t     *testing.T
	ctx   context.Context
	store *memstore.Store
	world *sim.World
	mu    sync.Mutex
	now   time.Time
}

func newSimWorld(t *testing.T) *simWorld {
	t.Helper()
	w := &simWorld{t: t, ctx: context.Background(), store: memstore.New(), now: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)}
	w.world = sim.NewWorld(sim.WorldConfig{Repo: simRepo, Branch: "main", Checks: []string{sim.CICheck}, Now: w.clock})
	return w
}

// clock is the test's time.
func (w *simWorld) clock() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.now
}

// advance moves the clock.
func (w *simWorld) advance(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now = w.now.Add(d)
}

// replica is a service (a replica's) on view (the shared store, or a view
// of it) and gh (the world, or a view of it), reconciling every
// interval.
func (w *simWorld) replica(view queue.Store, gh queue.GitHub, interval time.Duration) *service.Service {
	return service.NewService(view, gh, service.Options{Now: w.clock, ReconcileEvery: interval})
}

// quietSettings are the settings of a queue tested on the world's check,
// writing no comment and no check run to PRs, with edit applied.
func quietSettings(edit func(*queue.Settings)) queue.Settings {
	s := queue.DefaultSettings()
	s.RequiredStatuses = []string{sim.CICheck}
	s.CommentsEnabled, s.StatusCheckEnabled = false, false
	if edit != nil {
		edit(&s)
	}
	return s
}

// createQueue creates the queue of main on svc with s.
func (w *simWorld) createQueue(svc *service.Service, s queue.Settings) *queue.Queue {
	w.t.Helper()
	q, err := svc.CreateQueue(w.ctx, queue.QueueKey{Repo: simRepo, Branch: "main"}, s)
	if err != nil {
		w.t.Fatal(err)
	}
	return q
}

// submit opens a PR and submits it to q on svc.
func (w *simWorld) submit(svc *service.Service, q *queue.Queue, title string) (int, *queue.Entry) {
	w.t.Helper()
	pr := w.world.OpenPR(sim.PRSpec{Title: title})
	e, err := svc.Submit(w.ctx, queue.SubmitRequest{Key: q.Key, PRNumber: pr, Submitter: "dev", Source: "api"})
	if err != nil {
		w.t.Fatal(err)
	}
	return pr, e
}

// reportCI reports every pending CI job's result to svc (pass decides
// it).
func (w *simWorld) reportCI(svc *service.Service, pass bool) {
	w.t.Helper()
	for _, job := range w.world.PendingCI() {
		for _, c := range w.world.ReportCI(job.SHA, pass) {
			if err := svc.OnCheck(w.ctx, simRepo, c); err != nil {
				w.t.Fatal(err)
			}
		}
	}
}
