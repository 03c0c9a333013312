package dashboard

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// The dashboard lists active entries in queue order and explains recent
// decisions, newest first, including those of PRs that left the queue.
func TestDashboardExplainsRecentDecisions(t *testing.T) {
	d := newDashEnv(t, AccessPublic)
	q := d.queue("acme", "widgets", "main")
	for i, ev := range []queue.Event{
		{PRNumber: 7, From: queue.StateTesting, To: queue.StateFailed, Reason: queue.ReasonTestsFailed, Detail: "required check \"ci\" failed"},
		{PRNumber: 8, From: queue.StateTestsPassed, To: queue.StateMerged, Reason: queue.ReasonMergedByQueue, Detail: "merged into main as abc1234"},
	} {
		ev.QueueID, ev.EntryID, ev.At = q.ID, "e", d.now.Add(time.Duration(i-5)*time.Minute)
		d.must(d.store.AddEvent(context.Background(), &ev))
	}
	page := d.page("/")
	merged, failed := strings.Index(page, "merged into main as abc1234"), strings.Index(page, "required check &#34;ci&#34; failed")
	if merged < 0 || failed < 0 || merged > failed {
		t.Errorf("recent decisions missing or not newest first (merged at %d, failed at %d):\n%s", merged, failed, page)
	}
	wantIn(t, page, `<a href="/prs/acme/widgets/7">#7</a>`, `<a class="gh" href="https://gh.example/acme/widgets"`)
}

// Positions on the dashboard are 1-based, as everywhere; each PR links to
// GitHub and to its page, which shows where it stands and its timeline.
func TestDashboardPositionsAndPRPage(t *testing.T) {
	d := newDashEnv(t, AccessPublic)
	ctx := context.Background()
	q := d.queue("acme", "widgets", "main")
	for i, n := range []int{21, 22} {
		e := &queue.Entry{ID: fmt.Sprintf("e%d", n), QueueID: q.ID, PRNumber: n, State: queue.StatePending,
			StateReason: queue.ReasonAdmitted, Seq: int64(i + 1), SubmittedAt: d.now, AdmittedAt: d.now,
			StateChangedAt: d.now.Add(-90 * time.Second), PriorityValue: queue.PriorityMedium,
			PR: queue.PRFacts{Title: fmt.Sprintf("PR %d", n), Author: "alice"}}
		d.must(d.store.SaveEntry(ctx, e))
		ev := &queue.Event{QueueID: q.ID, EntryID: e.ID, PRNumber: n, At: d.now, From: queue.StateNotReady,
			To: queue.StatePending, Reason: queue.ReasonAdmitted, Detail: fmt.Sprintf("admitted #%d", n)}
		d.must(d.store.AddEvent(ctx, ev))
	}
	page := d.page("/")
	if !strings.Contains(page, "<td>1 of 2</td>") || !strings.Contains(page, "<td>2 of 2</td>") || strings.Contains(page, "0 of 2") {
		t.Errorf("positions not 1-based:\n%s", page)
	}
	wantIn(t, page, `href="/prs/acme/widgets/22"`, `<a href="https://gh.example/acme/widgets/pull/22">#22</a>`,
		`<a href="https://gh.example/alice">alice</a>`, ">1m<", // time in state
		`<a href="https://gh.example/acme/widgets/tree/main"><code>main</code></a>`)
	pr := d.page("/prs/acme/widgets/22")
	wantIn(t, pr, `acme/widgets <a href="https://gh.example/acme/widgets/pull/22">#22</a> PR 22`, "Position 2 of 2", "admitted #22")
	if strings.Contains(pr, "admitted #21") {
		t.Errorf("PR page shows another PR's decisions:\n%s", pr)
	}
	if rec := d.do("GET", "/prs/acme/widgets/x", nil); rec.Code != 404 {
		t.Errorf("bad PR number: %d", rec.Code)
	}
}

// A batch under test shows as one unit of the chain: its members, its test
// branch and commit, its test PR, and each required check with its state
// and details link (pending until reported); the queue's other repository
// is listed apart.
func TestDashboardChainShowsBatchWithChecks(t *testing.T) {
	d := newDashEnv(t, AccessPublic)
	ctx := context.Background()
	q := d.queue("acme", "widgets", "main")
	d.queue("acme", "gadgets", "release/1.x")
	run := &queue.TestRun{ID: "run1", QueueID: q.ID, EntryIDs: []string{"e31", "e32"}, PRNumbers: []int{31, 32},
		PRSHAs: []string{"aaa", "bbb"}, BaseSHA: "base", Branch: "mq-temp/main/run1", SHA: "0123456789abcdef",
		RequiredChecks: []string{"ci/test", "lint"}, Status: queue.RunInProgress, CreatedAt: d.now.Add(-5 * time.Minute),
		StartedAt: d.now.Add(-4 * time.Minute)}
	d.must(d.store.SaveRun(ctx, run))
	for i, n := range []int{31, 32, 33} {
		e := &queue.Entry{ID: fmt.Sprintf("e%d", n), QueueID: q.ID, PRNumber: n, State: queue.StateTesting, RunID: "run1",
			StateReason: queue.ReasonAdmitted, Seq: int64(i + 1), SubmittedAt: d.now, AdmittedAt: d.now, Position: int64(i + 1),
			PriorityValue: queue.PriorityMedium, PR: queue.PRFacts{Title: fmt.Sprintf("Feature %d", n)}}
		if n == 33 {
			e.State, e.RunID, e.Position = queue.StatePending, "", 0
		}
		d.must(d.store.SaveEntry(ctx, e))
	}
	d.must(d.store.RecordCheck(ctx, q.Key.Repo, queue.CheckResult{SHA: run.SHA, Kind: queue.KindCheckRun, Name: "ci/test",
		State: queue.CheckSuccess, URL: "https://ci.example/builds/7", UpdatedAt: d.now}))
	d.must(d.store.TouchRunSurface(ctx, q.ID, "run1"))
	d.must(d.store.SaveRunSurface(ctx, queue.RunSurface{RunID: "run1", QueueID: q.ID, PRNumber: 99}))

	page := d.page("/")
	wantIn(t, page, "Batch of 2", "for 4m",
		`<a href="https://gh.example/acme/widgets/pull/31">#31</a> <a class="page" href="/prs/acme/widgets/31">Feature 31</a>`,
		`<a href="https://gh.example/acme/widgets/pull/32">#32</a>`,
		`<a href="https://gh.example/acme/widgets/tree/mq-temp/main/run1"><code>mq-temp/main/run1</code></a>`,
		`<a href="https://gh.example/acme/widgets/commit/0123456789abcdef"><code>0123456</code></a>`,
		`Test PR <a href="https://gh.example/acme/widgets/pull/99">#99</a>`,
		`<a href="https://ci.example/builds/7">ci/test</a></td><td class="check-success">success`,
		`<td>lint</td><td class="check-pending">pending`,
		"testing <small>(run 1)</small>",
		`<a href="/repos/acme/gadgets">acme/gadgets</a>`, "release/1.x")
	if strings.Contains(page, "Feature 33</a> <a") || strings.Count(page, "Batch of") != 1 {
		t.Errorf("the pending PR is shown in a unit:\n%s", page)
	}
	repoPage := d.page("/repos/acme/widgets")
	if strings.Contains(repoPage, "gadgets") || !strings.Contains(repoPage, "Batch of 2") {
		t.Errorf("repository page shows another repository or misses its own:\n%s", repoPage)
	}
	if rec := d.do("GET", "/repos/acme/nothing", nil); rec.Code != 404 {
		t.Errorf("repository without a queue: %d", rec.Code)
	}
}
