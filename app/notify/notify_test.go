package notify

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/sqlite"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// received is one request a test endpoint got.
type received struct {
	header http.Header
	body   []byte
}

// endpoint records requests and answers with the next status of codes
// (200 once they run out).
type endpoint struct {
	mu    sync.Mutex
	got   []received
	codes []int
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	e.mu.Lock()
	defer e.mu.Unlock()
	code := http.StatusOK
	if len(e.codes) > 0 {
		code, e.codes = e.codes[0], e.codes[1:]
	}
	if code == http.StatusOK {
		e.got = append(e.got, received{header: r.Header.Clone(), body: body})
	}
	w.WriteHeader(code)
}

func (e *endpoint) messages(t *testing.T) []map[string]any {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []map[string]any
	for _, r := range e.got {
		var m map[string]any
		if err := json.Unmarshal(r.body, &m); err != nil {
			t.Fatalf("body %s: %v", r.body, err)
		}
		out = append(out, m)
	}
	return out
}

// fixture is a store with one queue, a batch of #1 and #2 and a single #3.
type fixture struct {
	ctx   context.Context
	store *sqlite.Store
	q     *queue.Queue
	now   time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	store := sqlitetest.Open(t)
	q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}, Branch: "main"},
		State: queue.QueueRunning, Settings: queue.DefaultSettings(), NextSeq: 1, CreatedAt: t0, UpdatedAt: t0}
	if err := store.CreateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 3; n++ {
		e := &queue.Entry{ID: entryID(n), QueueID: q.ID, PRNumber: n, PRSHA: "sha", State: queue.StateTesting,
			Submitter: "alice", SubmittedAt: t0, PR: queue.PRFacts{Author: "bob", Open: true}}
		if err := store.SaveEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []*queue.TestRun{
		{ID: "batch", QueueID: q.ID, EntryIDs: []string{"e1", "e2"}, PRNumbers: []int{1, 2}, Branch: "mq-merge/pr-1/batch", SHA: "bsha", Status: queue.RunFailed, FailureReason: queue.ReasonTestsFailed},
		{ID: "half", QueueID: q.ID, EntryIDs: []string{"e1"}, PRNumbers: []int{1}, Branch: "mq-merge/pr-1/half-bisection", SHA: "hsha", Status: queue.RunInProgress, Bisection: true, Parent: "batch"},
		{ID: "single", QueueID: q.ID, EntryIDs: []string{"e3"}, PRNumbers: []int{3}, Branch: "mq-merge/pr-3/single", SHA: "ssha", Status: queue.RunSucceeded},
	} {
		if err := store.SaveRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	return &fixture{ctx: ctx, store: store, q: q, now: t0}
}

func entryID(n int) string { return "e" + string(rune('0'+n)) }

func (f *fixture) event(t *testing.T, n int, from, to queue.EntryState, reason queue.Reason, run string) {
	t.Helper()
	ev := &queue.Event{QueueID: f.q.ID, EntryID: entryID(n), PRNumber: n, At: f.now, From: from, To: to, Reason: reason,
		Detail: "because " + string(reason), RunID: run}
	if err := f.store.AddEvent(f.ctx, ev); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) notifier(targets ...Target) *Notifier {
	return New(sqliteStore{f.store}, Options{Targets: targets, DetailsURL: "http://mq.example/", Now: func() time.Time { return f.now }, Holder: "this process"})
}

func TestSignMatchesTheStandardWebhooksExample(t *testing.T) {
	got := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
}

// Every event after the target was added is delivered once, in order,
// signed, with the batch notifications alongside the PR ones.
func TestDeliversTheEventLogInOrder(t *testing.T) {
	f := newFixture(t)
	f.event(t, 3, "", queue.StateNotReady, queue.ReasonSubmitted, "") // before the target existed: not sent
	ep := &endpoint{}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	target := Target{URL: srv.URL, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", Kind: Webhook}
	n := f.notifier(target)
	if _, err := n.Step(f.ctx, target); err != nil {
		t.Fatal(err)
	}
	// The batch has a draft test PR, #77 (createPrsForTestingBranches).
	if err := f.store.TouchRunSurface(f.ctx, f.q.ID, "batch"); err != nil {
		t.Fatal(err)
	}
	if err := f.store.SaveRunSurface(f.ctx, queue.RunSurface{RunID: "batch", PRNumber: 77}); err != nil {
		t.Fatal(err)
	}
	f.event(t, 1, queue.StatePending, queue.StateTesting, queue.ReasonTesting, "batch")
	f.event(t, 2, queue.StatePending, queue.StateTesting, queue.ReasonTesting, "batch")
	f.event(t, 1, queue.StateTesting, queue.StateTesting, queue.ReasonTesting, "half") // the batch failed: bisection
	f.event(t, 3, queue.StateTestsPassed, queue.StateMerged, queue.ReasonMergedByQueue, "single")
	f.event(t, 2, queue.StateTesting, queue.StateCancelled, queue.ReasonPRClosed, "batch")
	if _, err := n.Step(f.ctx, target); err != nil {
		t.Fatal(err)
	}
	got := ep.messages(t)
	var seq []string
	for _, m := range got {
		seq = append(seq, m["type"].(string)+"."+m["action"].(string))
	}
	want := "pull_request.testing pull_request_batch.testing pull_request.testing pull_request.testing pull_request_batch.failed pull_request.merged pull_request.canceled"
	if strings.Join(seq, " ") != want {
		t.Fatalf("delivered %v\nwant       %s", seq, want)
	}
	batch := got[1]
	if nums, _ := json.Marshal(batch["pr_numbers"]); string(nums) != "[1,2]" || batch["test_branch"] != "mq-merge/pr-1/batch" || batch["batched"] != true {
		t.Errorf("batch testing message %v", batch)
	}
	if batch["test_pr_number"] != 77.0 || got[4]["test_pr_number"] != 77.0 {
		t.Errorf("test_pr_number of the batch: testing %v, failed %v; want 77", batch["test_pr_number"], got[4]["test_pr_number"])
	}
	if v, ok := got[5]["test_pr_number"]; !ok || v != nil {
		t.Errorf("test_pr_number of a run without a test PR: %v (present %v), want null", v, ok)
	}
	merged := got[5]
	for k, v := range map[string]any{"pr_number": 3.0, "author": "alice", "status": "merged", "target_branch": "main",
		"test_branch_sha": "ssha", "details_url": "http://mq.example/", "timestamp": "2026-11-22T12:00:00.000Z", "reason": "merged_by_queue"} {
		if merged[k] != v {
			t.Errorf("merged message %s = %v, want %v", k, merged[k], v)
		}
	}
	if repo := merged["repository"].(map[string]any); repo["owner"] != "acme" || repo["name"] != "widgets" || repo["host"] != "github.com" {
		t.Errorf("repository %v", repo)
	}
	if got[6]["cancellation_reason"] != "pr_closed" || got[4]["failure_reason"] != "tests_failed" {
		t.Errorf("reasons: canceled %v, batch failed %v", got[6]["cancellation_reason"], got[4]["failure_reason"])
	}
	r := ep.got[5]
	if sig := Sign(target.Secret, r.header.Get("webhook-id"), r.header.Get("webhook-timestamp"), r.body); r.header.Get("webhook-signature") != sig || r.header.Get("webhook-id") == "" {
		t.Errorf("headers %v, want signature %s", r.header, sig)
	}
	// Caught up: nothing is sent twice.
	if _, err := n.Step(f.ctx, target); err != nil || len(ep.messages(t)) != len(got) {
		t.Errorf("a second step sent again (%d messages, %v)", len(ep.messages(t)), err)
	}
}

// A failing endpoint is retried with backoff; later events wait behind the
// failed one and nothing is lost, across a restart too.
func TestRetriesWithBackoffAndLosesNothing(t *testing.T) {
	f := newFixture(t)
	ep := &endpoint{codes: []int{http.StatusServiceUnavailable, http.StatusTooManyRequests}}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	target := Target{URL: srv.URL, Kind: Webhook}
	n := f.notifier(target)
	if _, err := n.Step(f.ctx, target); err != nil {
		t.Fatal(err)
	}
	f.event(t, 3, queue.StateTestsPassed, queue.StateMerged, queue.ReasonMergedByQueue, "single")
	f.event(t, 1, queue.StateTesting, queue.StateFailed, queue.ReasonTestsFailed, "half")
	wait, err := n.Step(f.ctx, target)
	if err == nil || wait != time.Second {
		t.Fatalf("first failure: wait %s, err %v; want 1s and the error", wait, err)
	}
	if wait, err := n.Step(f.ctx, target); err != nil || wait != time.Second || len(ep.messages(t)) != 0 {
		t.Fatalf("before the backoff: wait %s, err %v, %d sent", wait, err, len(ep.messages(t)))
	}
	f.now = f.now.Add(time.Second)
	if wait, err := n.Step(f.ctx, target); err == nil || wait != 2*time.Second {
		t.Fatalf("second failure: wait %s, err %v; want 2s", wait, err)
	}
	f.now = f.now.Add(2 * time.Second)
	restarted := f.notifier(target) // a new process reads the stored cursor
	if _, err := restarted.Step(f.ctx, target); err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, m := range ep.messages(t) {
		actions = append(actions, m["action"].(string))
	}
	if strings.Join(actions, " ") != "merged failed" {
		t.Errorf("delivered %v, want merged then failed", actions)
	}
}

// A permanent refusal is skipped; Slack targets get one-line summaries of
// the decisions only.
func TestPermanentRefusalAndSlack(t *testing.T) {
	f := newFixture(t)
	ep := &endpoint{codes: []int{http.StatusBadRequest}}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	slack := Target{URL: srv.URL + "/slack", Kind: Slack}
	n := f.notifier(slack)
	if _, err := n.Step(f.ctx, slack); err != nil {
		t.Fatal(err)
	}
	f.event(t, 3, queue.StateTestsPassed, queue.StateMerged, queue.ReasonMergedByQueue, "single") // refused: skipped
	f.event(t, 1, queue.StatePending, queue.StateTesting, queue.ReasonTesting, "batch")           // not a decision
	f.event(t, 1, queue.StateTesting, queue.StateFailed, queue.ReasonTestsFailed, "half")
	if _, err := n.Step(f.ctx, slack); err != nil {
		t.Fatal(err)
	}
	got := ep.messages(t)
	if len(got) != 1 {
		t.Fatalf("slack got %v, want one summary", got)
	}
	if text := got[0]["text"].(string); text != "acme/widgets → main: #1 failed — because tests_failed" {
		t.Errorf("slack text %q", text)
	}
}
