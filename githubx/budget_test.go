package githubx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// budgetAPI is a fakeAPI whose routes record, in order, what reached them
// and when by the test's clock.
type budgetAPI struct {
	*fakeAPI
	clk *manualClock

	mu      sync.Mutex
	arrived []arrival
}

type arrival struct {
	what string
	at   time.Time
	body string
}

func newBudgetAPI(t *testing.T) *budgetAPI {
	t.Helper()
	return &budgetAPI{fakeAPI: newFakeAPI(t), clk: newManualClock()}
}

// route adds a route that records its request, then answers with h.
func (f *budgetAPI) route(pattern string, h http.HandlerFunc) {
	f.handle(pattern, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.arrived = append(f.arrived, arrival{what: r.Method + " " + r.URL.Path, at: f.clk.Now(), body: string(body)})
		f.mu.Unlock()
		h(w, r)
	})
}

func (f *budgetAPI) arrivals() []arrival {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]arrival(nil), f.arrived...)
}

func (f *budgetAPI) whats() []string {
	var out []string
	for _, a := range f.arrivals() {
		out = append(out, a.what)
	}
	return out
}

// budgetClient is a Client over f with budget b on f's manual clock.
func (f *budgetAPI) budgetClient(b Budget) *Client {
	c, _ := f.client(WithBudget(b), WithBudgetClock(f.clk))
	return c
}

// waiting is how many requests wait for the installation's budget.
func waiting(c *Client) int {
	c.mu.Lock()
	s := c.budgets[testInstallation]
	c.mu.Unlock()
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, q := range s.waiting {
		n += len(q)
	}
	return n
}

// idle reports whether no request of the installation is in flight.
func idle(c *Client) bool {
	c.mu.Lock()
	s := c.budgets[testInstallation]
	c.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inflight == 0
}

// waitFor polls cond with a deadline (never a fixed sleep).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func okRoutes(f *budgetAPI) {
	f.route("PUT /repos/o/r/pulls/7/merge", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"sha": "m1", "merged": true})
	})
	f.route("POST /repos/o/r/issues/7/comments", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"id": 99})
	})
	f.route("PATCH /repos/o/r/issues/comments/99", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"id": 99})
	})
	f.route("DELETE /repos/o/r/git/refs/heads/old", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	f.route("POST /repos/o/r/statuses/abc", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"id": 1})
	})
	f.route("POST /repos/o/r/issues/comments/5/reactions", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"id": 1})
	})
	f.route("GET /repos/o/r/pulls/7", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"number": 7, "state": "open", "head": map[string]any{"sha": "h1", "ref": "b"}})
	})
}

// unclassedWrite posts a commit status with no class: ClassProgress.
func unclassedWrite(ctx context.Context, c *Client) error {
	gh, err := c.InstallationClient(ctx, testRepo)
	if err != nil {
		return err
	}
	_, _, err = gh.Repositories.CreateStatus(ctx, "o", "r", "abc", nil)
	return err
}

// Writes waiting for the budget are granted merges first, then what moves
// the queue, then surfaces (FIFO within a class), whatever order they
// asked in; a read is not held behind writes waiting for the window.
func TestBudgetGrantsWritesInClassOrder(t *testing.T) {
	t.Parallel()
	f := newBudgetAPI(t)
	okRoutes(f)
	c := f.budgetClient(Budget{WritesPerMinute: 1})
	ctx := t.Context()
	if err := c.AddReaction(ctx, testRepo, 5, "eyes"); err != nil { // fills the minute
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	run := func(name string, fn func() error) {
		wg.Add(1)
		n := waiting(c)
		go func() {
			defer wg.Done()
			if err := fn(); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}()
		waitFor(t, name+" to wait", func() bool { return waiting(c) == n+1 })
	}
	run("comment", func() error { _, err := c.UpsertComment(ctx, testRepo, 7, 0, "hello"); return err })
	run("delete", func() error { return c.DeleteBranch(ctx, testRepo, "old") })
	run("status", func() error { return unclassedWrite(ctx, c) })
	run("merge", func() error {
		_, err := c.MergePullRequest(ctx, testRepo, 7, queue.MergeRequest{SHA: "h1", Method: queue.Squash})
		return err
	})
	// A read needs points, not a write: it goes ahead at once.
	if _, err := c.GetPullRequest(ctx, testRepo, 7); err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "still waiting", waiting(c), 4)
	for i := 1; i <= 4; i++ {
		f.clk.Advance(time.Minute)
		waitFor(t, fmt.Sprintf("write %d", i), func() bool { return len(f.arrivals()) == 2+i && idle(c) })
	}
	wg.Wait()
	mustEqual(t, "order", f.whats(), []string{
		"POST /repos/o/r/issues/comments/5/reactions",
		"GET /repos/o/r/pulls/7",
		"PUT /repos/o/r/pulls/7/merge",
		"POST /repos/o/r/statuses/abc",
		"POST /repos/o/r/issues/7/comments",
		"DELETE /repos/o/r/git/refs/heads/old",
	})
	for i, a := range f.arrivals()[2:] {
		if want := testNow.Add(time.Duration(i+1) * time.Minute); a.at.Before(want) {
			t.Errorf("%s sent at %v, inside the full minute (before %v)", a.what, a.at, want)
		}
	}
}

// The hour window and the points bound hold too, and a write sent when a
// window frees is counted from its answer, not its grant.
func TestBudgetHoursAndPoints(t *testing.T) {
	t.Parallel()
	f := newBudgetAPI(t)
	okRoutes(f)
	c := f.budgetClient(Budget{WritesPerMinute: 10, WritesPerHour: 2, PointsPerMinute: 12})
	ctx := t.Context()
	for range 2 {
		if err := unclassedWrite(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	// 10 points used: two reads fit, the third waits for the minute.
	for range 2 {
		if _, err := c.GetPullRequest(ctx, testRepo, 7); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 2)
	go func() { _, err := c.GetPullRequest(ctx, testRepo, 7); done <- err }()
	waitFor(t, "the read to wait", func() bool { return waiting(c) == 1 })
	go func() { done <- unclassedWrite(ctx, c) }()
	waitFor(t, "the write to wait", func() bool { return waiting(c) == 2 })
	f.clk.Advance(time.Minute)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "the write waits for the hour", waiting(c), 1)
	f.clk.Advance(58 * time.Minute)
	mustEqual(t, "the write still waits", waiting(c), 1)
	f.clk.Advance(time.Minute)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := f.arrivals()
	if last := got[len(got)-1]; last.what != "POST /repos/o/r/statuses/abc" || last.at.Before(testNow.Add(time.Hour)) {
		t.Errorf("last request %s at %v, want the write an hour after the first", last.what, last.at)
	}
}

// A secondary limit pauses every request of the installation, reads and
// writes, for the window GitHub asks; none is sent inside it, and the
// refused write is sent again after it and succeeds.
func TestSecondaryLimitPausesTheInstallation(t *testing.T) {
	t.Parallel()
	f := newBudgetAPI(t)
	okRoutes(f)
	var refused atomic.Bool
	f.route("PUT /repos/o/r/pulls/8/merge", func(w http.ResponseWriter, _ *http.Request) {
		if refused.CompareAndSwap(false, true) {
			w.Header().Set("Retry-After", "30")
			ghError(w, http.StatusForbidden, "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"sha": "m8", "merged": true})
	})
	c := f.budgetClient(Budget{})
	ctx := t.Context()
	merged := make(chan error, 1)
	go func() {
		_, err := c.MergePullRequest(ctx, testRepo, 8, queue.MergeRequest{SHA: "h8", Method: queue.Squash})
		merged <- err
	}()
	waitFor(t, "the refused merge to wait", func() bool { return len(f.arrivals()) == 1 && waiting(c) == 1 })
	read := make(chan error, 1)
	go func() { _, err := c.GetPullRequest(ctx, testRepo, 7); read <- err }()
	waitFor(t, "the read to wait", func() bool { return waiting(c) == 2 })
	f.clk.Advance(29 * time.Second)
	mustEqual(t, "waiting inside the window", waiting(c), 2)
	f.clk.Advance(time.Second)
	if err := <-merged; err != nil {
		t.Fatalf("merge after the pause: %v", err)
	}
	if err := <-read; err != nil {
		t.Fatalf("read after the pause: %v", err)
	}
	got := f.arrivals()
	mustEqual(t, "requests", len(got), 3)
	for _, a := range got[1:] {
		if a.at.Before(testNow.Add(30 * time.Second)) {
			t.Errorf("%s sent at %v, inside the window", a.what, a.at.Sub(testNow))
		}
	}
}

// Every shape of rate-limit answer is waited out as GitHub asks and the
// refused request sent again; repeated secondary limits back off
// exponentially; a 403 that is no limit is a refusal, not retried.
func TestRateLimitAnswersAreWaitedOut(t *testing.T) {
	t.Parallel()
	const secondary = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
	reset := strconv.FormatInt(testNow.Add(10*time.Second).Unix(), 10)
	type answer struct {
		status  int
		headers map[string]string
		message string
	}
	tests := []struct {
		name      string
		refusals  []answer
		wantWaits []time.Duration
	}{
		{"403 secondary with retry-after", []answer{{403, map[string]string{"Retry-After": "7"}, secondary}}, []time.Duration{7 * time.Second}},
		{"403 secondary without retry-after waits a minute", []answer{{403, nil, secondary}}, []time.Duration{time.Minute}},
		{"429 without headers waits a minute", []answer{{429, nil, "Too Many Requests"}}, []time.Duration{time.Minute}},
		{"429 with a long retry-after", []answer{{429, map[string]string{"Retry-After": "3600"}, "Too Many Requests"}}, []time.Duration{time.Hour}},
		{"403 primary waits for the reset", []answer{{403, map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": reset}, "API rate limit exceeded"}},
			[]time.Duration{11 * time.Second}},
		{"repeated secondary limits back off", []answer{
			{403, map[string]string{"Retry-After": "5"}, secondary}, {403, map[string]string{"Retry-After": "5"}, secondary},
			{429, map[string]string{"Retry-After": "5"}, secondary}, {403, nil, secondary},
		}, []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 8 * time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			var n atomic.Int32
			f.handle("PUT /repos/o/r/pulls/7/merge", func(w http.ResponseWriter, _ *http.Request) {
				if i := int(n.Add(1)) - 1; i < len(tt.refusals) {
					a := tt.refusals[i]
					for k, v := range a.headers {
						w.Header().Set(k, v)
					}
					ghError(w, a.status, a.message)
					return
				}
				writeJSON(w, http.StatusOK, map[string]any{"sha": "m1", "merged": true})
			})
			c, sl := f.client()
			sha, err := c.MergePullRequest(t.Context(), testRepo, 7, queue.MergeRequest{SHA: "h1", Method: queue.Squash})
			if err != nil || sha != "m1" {
				t.Fatalf("MergePullRequest() = %q, %v; want merged after the waits", sha, err)
			}
			mustEqual(t, "requests", int(n.Load()), len(tt.refusals)+1)
			mustEqual(t, "waits", sl.all(), tt.wantWaits)
		})
	}
	t.Run("403 without a limit is a refusal", func(t *testing.T) {
		t.Parallel()
		f := newFakeAPI(t)
		var n atomic.Int32
		f.handle("PUT /repos/o/r/pulls/7/merge", func(w http.ResponseWriter, _ *http.Request) {
			n.Add(1)
			ghError(w, http.StatusForbidden, "Resource not accessible by integration")
		})
		c, sl := f.client()
		_, err := c.MergePullRequest(t.Context(), testRepo, 7, queue.MergeRequest{SHA: "h1", Method: queue.Squash})
		var rej *queue.RejectedError
		if !errors.As(err, &rej) || rej.Status != 403 {
			t.Fatalf("error = %v, want a refusal", err)
		}
		mustEqual(t, "requests", n.Load(), int32(1))
		mustEqual(t, "waits", len(sl.all()), 0)
	})
}

// A request whose context ends while it waits (for budget or a pause)
// returns the context's error, sends nothing and takes no budget.
func TestBudgetWaitEndsWithTheContext(t *testing.T) {
	t.Parallel()
	f := newBudgetAPI(t)
	okRoutes(f)
	c := f.budgetClient(Budget{WritesPerMinute: 1})
	if err := unclassedWrite(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { _, err := c.UpsertComment(ctx, testRepo, 7, 0, "never"); done <- err }()
	waitFor(t, "the comment to wait", func() bool { return waiting(c) == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("UpsertComment() = %v, want context.Canceled", err)
	}
	mustEqual(t, "waiting", waiting(c), 0)
	mustEqual(t, "sent", f.whats(), []string{"POST /repos/o/r/statuses/abc"})

	// The cancelled write took nothing: the next minute has room for one.
	f.clk.Advance(time.Minute)
	if _, err := c.UpsertComment(t.Context(), testRepo, 7, 0, "now"); err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "sent", len(f.arrivals()), 2)
}

// ReserveWrite waits for the budget before the write is composed: the
// caller writes the newest state once, the states in between are skipped,
// and the write uses the reservation (it does not wait again). A
// reservation given back unused returns its budget.
func TestReserveWriteCoalesces(t *testing.T) {
	t.Parallel()
	f := newBudgetAPI(t)
	okRoutes(f)
	c := f.budgetClient(Budget{WritesPerMinute: 1})
	ctx := t.Context()
	if err := unclassedWrite(ctx, c); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	desired := "state 1"
	done := make(chan error, 1)
	go func() {
		rctx, release, err := c.ReserveWrite(ctx, testRepo, ClassSurface)
		if err != nil {
			done <- err
			return
		}
		defer release()
		mu.Lock()
		body := desired // read after the wait: the newest
		mu.Unlock()
		_, err = c.UpsertComment(rctx, testRepo, 7, 99, body)
		done <- err
	}()
	waitFor(t, "the reservation to wait", func() bool { return waiting(c) == 1 })
	for _, s := range []string{"state 2", "state 3", "state 4"} {
		mu.Lock()
		desired = s
		mu.Unlock()
	}
	f.clk.Advance(time.Minute)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := f.arrivals()
	mustEqual(t, "requests", len(got), 2)
	if got[1].what != "PATCH /repos/o/r/issues/comments/99" || got[1].body != `{"body":"state 4"}`+"\n" {
		t.Errorf("write = %s %q, want one edit with the newest state", got[1].what, got[1].body)
	}
	// The minute is full again (the reservation was the write): a second
	// write waits.
	go func() { done <- unclassedWrite(ctx, c) }()
	waitFor(t, "the next write to wait", func() bool { return waiting(c) == 1 })
	f.clk.Advance(time.Minute)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// A reservation given back lets the next write through at once.
	f.clk.Advance(time.Minute)
	_, release, err := c.ReserveWrite(ctx, testRepo, ClassSurface)
	if err != nil {
		t.Fatal(err)
	}
	release()
	release() // twice is harmless
	if err := unclassedWrite(ctx, c); err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "requests", len(f.arrivals()), 4)
}

// A reservation waiting while GitHub's pause is on is granted only after
// it, and its write is sent after it too.
func TestReservationRespectsThePause(t *testing.T) {
	t.Parallel()
	f := newBudgetAPI(t)
	okRoutes(f)
	f.route("POST /repos/o/r/statuses/bad", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "20")
		ghError(w, http.StatusTooManyRequests, "slow down")
	})
	c := f.budgetClient(Budget{})
	ctx, cancel := context.WithCancel(t.Context())
	refused := make(chan error, 1)
	go func() {
		gh, err := c.InstallationClient(ctx, testRepo)
		if err == nil {
			_, _, err = gh.Repositories.CreateStatus(ctx, "o", "r", "bad", nil)
		}
		refused <- err
	}()
	waitFor(t, "the refused write to wait", func() bool { return len(f.arrivals()) == 1 && waiting(c) == 1 })
	done := make(chan error, 1)
	go func() {
		rctx, release, err := c.ReserveWrite(t.Context(), testRepo, ClassSurface)
		if err != nil {
			done <- err
			return
		}
		defer release()
		_, err = c.UpsertComment(rctx, testRepo, 7, 0, "after")
		done <- err
	}()
	waitFor(t, "the reservation to wait", func() bool { return waiting(c) == 2 })
	cancel() // the refused write gives up: its context's error, nothing more sent
	if err := <-refused; !errors.Is(err, context.Canceled) {
		t.Fatalf("refused write = %v, want context.Canceled", err)
	}
	f.clk.Advance(19 * time.Second)
	mustEqual(t, "waiting", waiting(c), 1)
	f.clk.Advance(time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := f.arrivals()
	mustEqual(t, "requests", len(got), 2)
	if got[1].at.Before(testNow.Add(20 * time.Second)) {
		t.Errorf("comment sent %v after the refusal, inside the window", got[1].at.Sub(testNow))
	}
}

func TestWithWriteClassDefaults(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	mustEqual(t, "none", writeClassOf(ctx), ClassProgress)
	mustEqual(t, "merge", writeClassOf(WithWriteClass(ctx, ClassMerge)), ClassMerge)
	mustEqual(t, "invalid", writeClassOf(WithWriteClass(ctx, WriteClass(7))), ClassProgress)
	mustEqual(t, "name", ClassSurface.String(), "surface")
}

func TestBudgetValidate(t *testing.T) {
	t.Parallel()
	if err := DefaultBudget().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, b := range []Budget{{Concurrent: -1}, {WritesPerHour: -5}, {Minute: -time.Second}, {PointsPerMinute: 4}} {
		if err := b.Validate(); err == nil {
			t.Errorf("%+v accepted", b)
		}
	}
	got := Budget{Minute: time.Second}.WithDefaults()
	if got.WritesPerMinute != 80 || got.WritesPerHour != 500 || got.PointsPerMinute != 900 || got.Concurrent != 100 ||
		got.Hour != time.Hour || got.MaxPause != 15*time.Second {
		t.Errorf("WithDefaults() = %+v", got)
	}
}
