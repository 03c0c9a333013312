package service_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/service"
	"github.com/mergequeue/mq/queue/sqlite"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
)

// repoGitHub is a surfaceGitHub whose branches are kept per repository,
// counting how often each repository's branches are listed.
type repoGitHub struct {
	*surfaceGitHub
	mu       sync.Mutex
	branches map[string]map[string]bool // repository (full name) → branches
	listed   map[string]int             // repository (full name) → ListBranches calls
}

func newRepoGitHub() *repoGitHub {
	return &repoGitHub{surfaceGitHub: newSurfaceGitHub(), branches: map[string]map[string]bool{}, listed: map[string]int{}}
}

func (g *repoGitHub) ListBranches(ctx context.Context, repo queue.Repo, prefix string) ([]string, error) {
	if _, err := g.surfaceGitHub.ListBranches(ctx, repo, prefix); err != nil { // counts the call, injects faults
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.listed[repo.FullName()]++
	var out []string
	for b := range g.branches[repo.FullName()] {
		if strings.HasPrefix(b, prefix) {
			out = append(out, b)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (g *repoGitHub) DeleteBranch(ctx context.Context, repo queue.Repo, name string) error {
	if err := g.surfaceGitHub.DeleteBranch(ctx, repo, name); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.branches[repo.FullName()], name)
	return nil
}

// DeleteBranches implements queue.BranchBatchDeleter.
func (g *repoGitHub) DeleteBranches(ctx context.Context, repo queue.Repo, names []string) ([]string, error) {
	if _, err := g.surfaceGitHub.DeleteBranches(ctx, repo, names); err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, n := range names {
		delete(g.branches[repo.FullName()], n)
	}
	return names, nil
}

// put creates branches in repo.
func (g *repoGitHub) put(repo queue.Repo, names ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.branches[repo.FullName()] == nil {
		g.branches[repo.FullName()] = map[string]bool{}
	}
	for _, n := range names {
		g.branches[repo.FullName()][n] = true
	}
}

// on returns repo's branches, sorted.
func (g *repoGitHub) on(repo queue.Repo) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for b := range g.branches[repo.FullName()] {
		out = append(out, b)
	}
	slices.Sort(out)
	return out
}

// listings returns how often repo's branches were listed.
func (g *repoGitHub) listings(repo queue.Repo) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.listed[repo.FullName()]
}

// totalCalls is every call the port answered.
func (g *repoGitHub) totalCalls() int {
	g.surfaceGitHub.mu.Lock()
	defer g.surfaceGitHub.mu.Unlock()
	n := 0
	for _, c := range g.calls {
		n += c
	}
	return n
}

// orgWorld is a service over a SQLite store (which counts its statements)
// and a repoGitHub, with n queues, each on "main" of a repository of its
// own, and a clock the test moves.
type orgWorld struct {
	t      *testing.T
	ctx    context.Context
	store  *sqlite.Store
	gh     *repoGitHub
	svc    *service.Service
	rec    *service.Reconciler
	every  time.Duration
	mu     sync.Mutex
	now    time.Time
	queues []*queue.Queue
}

// orgRepo is the repository of the i-th queue of an orgWorld.
func orgRepo(i int) queue.Repo {
	return queue.Repo{Host: "github.com", Owner: "acme", Name: fmt.Sprintf("repo-%04d", i)}
}

func newOrgWorld(t *testing.T, n int) *orgWorld {
	t.Helper()
	ctx := context.Background()
	store := sqlitetest.Open(t)
	w := &orgWorld{t: t, ctx: ctx, store: store, gh: newRepoGitHub(), every: time.Minute,
		now: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)}
	w.svc = service.NewService(store, w.gh, service.Options{Now: w.clock, ReconcileEvery: w.every})
	w.rec = w.svc.Reconciler()
	for i := range n {
		q, err := w.svc.CreateQueue(ctx, queue.QueueKey{Repo: orgRepo(i), Branch: "main"}, queue.DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		w.queues = append(w.queues, q)
	}
	return w
}

func (w *orgWorld) clock() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.now
}

// interval moves the clock by one reconcile interval and runs a pass.
func (w *orgWorld) interval() {
	w.t.Helper()
	w.mu.Lock()
	w.now = w.now.Add(w.every)
	w.mu.Unlock()
	if _, err := w.rec.Pass(w.ctx); err != nil {
		w.t.Fatalf("pass: %v", err)
	}
}

// idleSweepCost returns the GitHub calls and store statements of ten
// reconciler passes, one reconcile interval apart, over n idle queues
// each in a repository of its own, once the start-up sweep (which lists
// every repository's branches once) is done.
func idleSweepCost(t *testing.T, n int) (calls int, statements int64) {
	t.Helper()
	w := newOrgWorld(t, n)
	for range 10 { // the start-up sweep, paced or not
		w.interval()
	}
	for i := range n {
		if w.gh.listings(orgRepo(i)) == 0 {
			t.Fatalf("the start-up sweep did not list the branches of %s", orgRepo(i).FullName())
		}
	}
	c0, s0 := w.gh.totalCalls(), w.store.Statements()
	for range 10 {
		w.interval()
	}
	return w.gh.totalCalls() - c0, w.store.Statements() - s0
}

// An organisation with the App on many repositories, each with an idle
// queue, pays for the branch clean-up what two repositories do: after the
// start-up sweep, a repository whose queue does nothing has its branches
// listed on GitHub only by the patrol, one repository per interval in
// turn, and costs no statement per pass. The clean-up listed every
// repository's branches each reconcile interval (10,000 repositories:
// 20,000 GitHub calls every 30 s) and read each one's records each pass.
func TestIdleRepositoriesDoNotAddToTheBranchCleanUpsCost(t *testing.T) {
	t.Parallel()
	fewCalls, fewStatements := idleSweepCost(t, 2)
	manyCalls, manyStatements := idleSweepCost(t, 200)
	t.Logf("ten passes after the start-up sweep: 2 idle repositories %d GitHub calls, %d statements; 200: %d calls, %d statements",
		fewCalls, fewStatements, manyCalls, manyStatements)
	if manyCalls > fewCalls {
		t.Errorf("200 idle repositories cost %d GitHub calls over ten passes, 2 cost %d: the clean-up's cost grows with idle repositories", manyCalls, fewCalls)
	}
	if manyStatements > fewStatements {
		t.Errorf("200 idle repositories cost %d statements over ten passes, 2 cost %d: the clean-up's cost grows with idle repositories", manyStatements, fewStatements)
	}
}

// run saves a run of the i-th queue with its test branch recorded and
// on GitHub, open or closed at the world's time.
func (w *orgWorld) run(i int, id string, closed bool) string {
	w.t.Helper()
	q := w.queues[i]
	branch := "mq-merge/pr-1/" + id
	r := &queue.TestRun{ID: id, QueueID: q.ID, SHA: "sha-" + id, Branch: branch, Status: queue.RunInProgress, CreatedAt: w.clock()}
	if closed {
		r.Status, r.Closed, r.FinishedAt = queue.RunSucceeded, true, w.clock()
	}
	if err := w.store.SaveRun(w.ctx, r); err != nil {
		w.t.Fatal(err)
	}
	if err := w.store.RecordRef(w.ctx, queue.Ref{Repo: q.Key.Repo, Name: branch, QueueID: q.ID, RunID: id, CreatedAt: w.clock()}); err != nil {
		w.t.Fatal(err)
	}
	w.gh.put(q.Key.Repo, branch)
	return branch
}

// A repository where a queue does something is swept again: each interval
// while its queue has work or a run's branch is recorded, and once more
// after, which finds a branch left behind by that work; then no more. Its
// ended run's branch is deleted; the idle repositories are not listed.
func TestActivitySweepsItsRepositoryAgainUntilItIsQuiet(t *testing.T) {
	t.Parallel()
	w := newOrgWorld(t, 5)
	w.interval() // the start-up sweep
	busy, idle := orgRepo(2), orgRepo(3)
	before := w.gh.listings(idle)
	branch := w.run(2, "run1", false)
	w.gh.put(busy, "mq-temp/crashed") // left by a crash: never recorded
	w.interval()
	if got := w.gh.on(busy); !slices.Equal(got, []string{branch}) {
		t.Fatalf("branches of the busy repository %v, want only its open run's", got)
	}
	// The run ends; the next build would delete its branch with its
	// publish, but there is none: the reconciler deletes it after an
	// interval.
	r, err := w.store.GetRun(w.ctx, "run1")
	if err != nil {
		t.Fatal(err)
	}
	r.Status, r.Closed, r.FinishedAt = queue.RunSucceeded, true, w.clock()
	if err := w.store.SaveRun(w.ctx, r); err != nil {
		t.Fatal(err)
	}
	w.interval()
	if got := w.gh.on(busy); len(got) != 0 {
		t.Fatalf("branches of the busy repository after its run ended %v, want none", got)
	}
	if refs, err := w.store.ListRefs(w.ctx, busy); err != nil || len(refs) != 0 {
		t.Fatalf("records after the run's branch was deleted: %+v, %v", refs, err)
	}
	// A branch the work left behind unrecorded (an answer lost after it
	// was created) is found by the sweep after the repository went quiet.
	w.gh.put(busy, "mq-temp/late")
	w.interval()
	if got := w.gh.on(busy); len(got) != 0 {
		t.Fatalf("branches of the repository once quiet %v, want none", got)
	}
	// From then on, only the patrol lists branches: one repository per
	// interval, in turn.
	listed := func() int {
		n := 0
		for i := range 5 {
			n += w.gh.listings(orgRepo(i))
		}
		return n
	}
	quiet, all := w.gh.listings(busy), listed()
	for range 5 {
		w.interval()
	}
	if got := listed() - all; got > 5*2 {
		t.Errorf("the quiet repositories were listed %d times in five intervals, want at most one repository (two prefixes) per interval", got)
	}
	if got := w.gh.listings(busy) - quiet; got > 2 {
		t.Errorf("the repository gone quiet was listed %d times in five intervals, want at most once (two prefixes) by the patrol", got)
	}
	if got := w.gh.listings(idle) - before; got > 2*2 {
		t.Errorf("an idle repository was listed %d times after the start-up sweep", got)
	}
}

// The patrol finds a branch left without a record in a repository that
// went quiet after its last sweep (a writer cut off in the middle of a
// request, or frozen, could leave one): within a round of the
// repositories, one per interval, however long the repository stays
// idle.
func TestThePatrolFindsAnUnrecordedBranchInAQuietRepository(t *testing.T) {
	t.Parallel()
	const n = 4
	w := newOrgWorld(t, n)
	w.interval() // the start-up sweep
	w.interval()
	late := orgRepo(1)
	w.gh.put(late, "mq-merge/pr-2/landed-after-the-last-sweep", "mq-temp/late")
	for k := 0; len(w.gh.on(late)) > 0; k++ {
		if k > n+1 {
			t.Fatalf("after %d intervals %s still has %v: the patrol did not reach it within a round", k, late.FullName(), w.gh.on(late))
		}
		w.interval()
	}
}

// A recorded branch of an ended run in a repository whose queue is idle
// (no entry, no open run) is still deleted, and the repository swept.
func TestAnEndedRunsBranchIsDeletedInAnIdleRepository(t *testing.T) {
	t.Parallel()
	w := newOrgWorld(t, 3)
	w.interval()
	repo := orgRepo(1)
	w.run(1, "ended", true)
	w.gh.put(repo, "mq-temp/stray")
	w.interval()
	w.interval()
	if got := w.gh.on(repo); len(got) != 0 {
		t.Fatalf("branches %v, want the ended run's and the stray one deleted", got)
	}
}

// devQueueWithLane creates a queue for "dev" in repo with its lane
// recorded (not created on GitHub), and returns it with the lane's name.
func (w *orgWorld) devQueueWithLane(repo queue.Repo) (*queue.Queue, string) {
	w.t.Helper()
	dev, err := w.svc.CreateQueue(w.ctx, queue.QueueKey{Repo: repo, Branch: "dev"}, queue.DefaultSettings())
	if err != nil {
		w.t.Fatal(err)
	}
	lane := fmt.Sprintf("mq-temp/lane-%d", dev.ID)
	if err := w.store.RecordRef(w.ctx, queue.Ref{Repo: repo, Name: lane, QueueID: dev.ID, CreatedAt: w.clock()}); err != nil {
		w.t.Fatal(err)
	}
	return dev, lane
}

// Deleting a queue drops the records of its branches with it (its lane,
// ended branches): its repository is swept at the next pass, which deletes
// them, though no queue there is busy.
func TestDeletingAQueueSweepsItsRepository(t *testing.T) {
	t.Parallel()
	w := newOrgWorld(t, 2)
	repo := orgRepo(0)
	dev, lane := w.devQueueWithLane(repo)
	w.gh.put(repo, lane)
	w.interval()
	if got := w.gh.on(repo); !slices.Equal(got, []string{lane}) {
		t.Fatalf("branches %v, want the live lane kept", got)
	}
	if err := w.svc.DeleteQueue(w.ctx, dev.Key); err != nil {
		t.Fatal(err)
	}
	w.interval()
	if got := w.gh.on(repo); len(got) != 0 {
		t.Fatalf("branches %v after the queue was deleted, want its lane deleted", got)
	}
}

// The start-up sweep over many repositories is paced: at most
// MaxSweepsPerInterval repositories are listed per reconcile interval,
// however often the reconciler is woken, and every repository is swept
// once, its orphan deleted.
func TestTheStartUpSweepIsPaced(t *testing.T) {
	t.Parallel()
	n := 2*service.MaxSweepsPerInterval + 20
	w := newOrgWorld(t, n)
	for i := range n {
		w.gh.put(orgRepo(i), "mq-temp/orphan")
	}
	swept := func() int {
		k := 0
		for i := range n {
			if w.gh.listings(orgRepo(i)) > 0 {
				k++
			}
		}
		return k
	}
	for range 3 { // woken three times in the first interval
		if _, err := w.rec.Pass(w.ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := swept(); got != service.MaxSweepsPerInterval {
		t.Fatalf("%d repositories swept in the first interval, want %d", got, service.MaxSweepsPerInterval)
	}
	for range 3 {
		w.interval()
	}
	total := 0
	for i := range n {
		if got := w.gh.on(orgRepo(i)); len(got) != 0 {
			t.Fatalf("%s still has %v after the start-up sweep", orgRepo(i).FullName(), got)
		}
		got := w.gh.listings(orgRepo(i))
		if got < 2 { // its scratch and test prefixes, once
			t.Fatalf("%s listed %d times, want 2", orgRepo(i).FullName(), got)
		}
		total += got
	}
	// Each repository once, and the patrol's: at most one repository per
	// interval, once the start-up's sweeps leave it room (not in the
	// first).
	if total > 2*n+2*3 {
		t.Fatalf("%d listings over %d repositories in four intervals, want each listed once (two prefixes) and at most one patrol sweep in each of the last three", total, n)
	}
}

// Taking the reconciler's role (Run) sweeps every repository again, as a
// start-up does: another replica may have crashed while creating
// branches.
func TestTakingTheReconcilerRoleSweepsEveryRepositoryAgain(t *testing.T) {
	t.Parallel()
	w := newOrgWorld(t, 3)
	run := func() {
		ctx, cancel := context.WithCancel(w.ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			w.rec.Run(ctx)
		}()
		defer func() {
			cancel()
			<-done
		}()
		deadline := time.Now().Add(10 * time.Second)
		for {
			clean := true
			for i := range 3 {
				clean = clean && len(w.gh.on(orgRepo(i))) == 0 && w.gh.listings(orgRepo(i)) > 0
			}
			if clean {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the branches left after the reconciler took the role: %v %v %v",
					w.gh.on(orgRepo(0)), w.gh.on(orgRepo(1)), w.gh.on(orgRepo(2)))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	run()
	for i := range 3 {
		w.gh.put(orgRepo(i), "mq-temp/left-by-a-crash")
	}
	if _, err := w.rec.Pass(w.ctx); err != nil { // at the same time: nothing owed
		t.Fatal(err)
	}
	run()
}

// Deleting a queue through a replica that does not run the reconciler
// deletes its recorded branches (its lane, an ended run's) at once: the
// sweep it would owe lives in that replica's memory, whose reconciler
// never runs, and the queue's repository leaves the patrol's round with
// it.
func TestDeletingAQueueDeletesItsBranchesAtOnce(t *testing.T) {
	t.Parallel()
	w := newOrgWorld(t, 1)
	repo := orgRepo(0)
	dev, lane := w.devQueueWithLane(repo)
	ended := "mq-merge/pr-1/ended"
	r := &queue.TestRun{ID: "ended", QueueID: dev.ID, SHA: "sha-ended", Branch: ended, Status: queue.RunSucceeded, Closed: true, CreatedAt: w.clock(), FinishedAt: w.clock()}
	if err := w.store.SaveRun(w.ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := w.store.RecordRef(w.ctx, queue.Ref{Repo: repo, Name: ended, QueueID: dev.ID, RunID: "ended", CreatedAt: w.clock()}); err != nil {
		t.Fatal(err)
	}
	w.gh.put(repo, lane, ended)
	other := service.NewService(w.store, w.gh, service.Options{Now: w.clock, ReconcileEvery: w.every}) // another replica
	if err := other.DeleteQueue(w.ctx, dev.Key); err != nil {
		t.Fatal(err)
	}
	if got := w.gh.on(repo); len(got) != 0 {
		t.Fatalf("branches %v after the queue was deleted, want its lane and ended branch deleted", got)
	}
}
