package dashboard

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// The fragment live.js polls answers 304 while nothing changed and the
// new state as soon as something did, without a page reload.
func TestDashboardFragmentSeesChanges(t *testing.T) {
	d := newDashEnv(t, AccessPublic)
	ctx := context.Background()
	q := d.queue("acme", "widgets", "main")
	e := &queue.Entry{ID: "e5", QueueID: q.ID, PRNumber: 5, State: queue.StatePending, StateReason: queue.ReasonAdmitted,
		Seq: 1, SubmittedAt: d.now, AdmittedAt: d.now, StateChangedAt: d.now, PriorityValue: queue.PriorityMedium,
		PR: queue.PRFacts{Title: "Add caching"}}
	d.must(d.store.SaveEntry(ctx, e))

	home := d.page("/")
	wantIn(t, home, `data-fragment="/fragments/queues"`, `<script src="/static/live.js"`)
	first := d.do("GET", "/fragments/queues", nil)
	etag := first.Header().Get("ETag")
	if first.Code != http.StatusOK || etag == "" || !strings.Contains(first.Body.String(), "Add caching") ||
		strings.Contains(first.Body.String(), "<html") {
		t.Fatalf("fragment: %d etag %q\n%s", first.Code, etag, first.Body)
	}
	if again := d.do("GET", "/fragments/queues", nil, "If-None-Match", etag); again.Code != http.StatusNotModified {
		t.Errorf("unchanged fragment: %d", again.Code)
	}

	e.State, e.StateReason, e.StateReasonDetail = queue.StateNotReady, queue.ReasonAdmitted, "waiting for required reviews"
	d.must(d.store.SaveEntry(ctx, e))
	changed := d.do("GET", "/fragments/queues", nil, "If-None-Match", etag)
	if changed.Code != http.StatusOK || changed.Header().Get("ETag") == etag ||
		!strings.Contains(changed.Body.String(), "waiting for required reviews") {
		t.Errorf("changed fragment: %d\n%s", changed.Code, changed.Body)
	}
	if rec := d.do("GET", "/fragments/queues?repo=nope", nil); rec.Code != http.StatusBadRequest {
		t.Errorf("bad repo filter: %d", rec.Code)
	}
	if other := d.do("GET", "/fragments/queues?repo=acme/gadgets", nil); strings.Contains(other.Body.String(), "Add caching") {
		t.Errorf("repo filter ignored: %s", other.Body)
	}
}

// A PR's page follows its PR live too: its fragment shows the new state
// and a merged PR's commit on GitHub.
func TestDashboardPRFragmentSeesChanges(t *testing.T) {
	d := newDashEnv(t, AccessPublic)
	ctx := context.Background()
	q := d.queue("acme", "widgets", "main")
	e := &queue.Entry{ID: "e9", QueueID: q.ID, PRNumber: 9, State: queue.StateTestsPassed, StateReason: queue.ReasonAdmitted,
		Seq: 1, SubmittedAt: d.now, AdmittedAt: d.now, StateChangedAt: d.now, PR: queue.PRFacts{Title: "Fix it"}}
	d.must(d.store.SaveEntry(ctx, e))
	wantIn(t, d.page("/prs/acme/widgets/9"), `data-fragment="/fragments/prs/acme/widgets/9"`, "<b>tests_passed</b>")
	first := d.do("GET", "/fragments/prs/acme/widgets/9", nil)
	if first.Code != http.StatusOK || strings.Contains(first.Body.String(), "<html") {
		t.Fatalf("PR fragment: %d\n%s", first.Code, first.Body)
	}
	e.State, e.StateReason, e.ConcludedAt, e.PR.MergeCommitSHA = queue.StateMerged, queue.ReasonMergedByQueue, d.now, "feedfacecafe1234"
	d.must(d.store.SaveEntry(ctx, e))
	changed := d.do("GET", "/fragments/prs/acme/widgets/9", nil, "If-None-Match", first.Header().Get("ETag"))
	if changed.Code != http.StatusOK {
		t.Fatalf("changed PR fragment: %d", changed.Code)
	}
	wantIn(t, changed.Body.String(), "<b>merged</b> (merged_by_queue)",
		`merged as <a href="https://gh.example/acme/widgets/commit/feedfacecafe1234"><code>feedfac</code></a>`)
}
