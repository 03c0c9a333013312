package app

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
	d := newDashEnv(t, DashboardPublic)
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
