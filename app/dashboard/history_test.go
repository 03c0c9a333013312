package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// History reaches beyond a day, filters by state, author (any case) and
// time range, pages 50 at a time, and refuses bad filters saying which.
func TestDashboardHistoryFilters(t *testing.T) {
	d := newDashEnv(t, AccessPublic)
	ctx := context.Background()
	q := d.queue("acme", "widgets", "main")
	// 60 entries, one a day back from now: PR n ended n days ago; every
	// third by bob and failed, the others by alice and merged.
	for n := 1; n <= 60; n++ {
		e := &queue.Entry{ID: fmt.Sprintf("e%02d", n), QueueID: q.ID, PRNumber: n, State: queue.StateMerged,
			StateReason: queue.ReasonMergedByQueue, SubmittedAt: d.now.Add(-time.Duration(n)*24*time.Hour - time.Hour),
			ConcludedAt: d.now.Add(-time.Duration(n) * 24 * time.Hour), PR: queue.PRFacts{Title: fmt.Sprintf("Change %d", n), Author: "alice"}}
		if n%3 == 0 {
			e.State, e.StateReason, e.StateReasonDetail, e.PR.Author = queue.StateFailed, queue.ReasonTestsFailed, "ci/test failed", "bob"
		}
		d.must(d.store.SaveEntry(ctx, e))
	}
	base := "/repos/acme/widgets/history?branch=main"

	page := d.page(base + "&state=failed&author=BOB&since=2026-02-20")
	// Failed PRs by bob that ended on or after Feb 20 (now is Mar 10): 3..18 days ago.
	for n := 1; n <= 60; n++ {
		link := fmt.Sprintf(`<a href="https://gh.example/acme/widgets/pull/%d">#%d</a>`, n, n)
		want := n%3 == 0 && n <= 18
		if strings.Contains(page, link) != want {
			t.Errorf("PR #%d listed = %v, want %v", n, !want, want)
		}
	}
	wantIn(t, page, "tests_failed: ci/test failed", `<a href="https://gh.example/bob">bob</a>`, "<td>1h00m</td>",
		`<option value="failed" selected>`, `value="2026-02-20"`)

	first := d.page(base)
	if c := strings.Count(first, `class="page"`); c != historyPageSize {
		t.Errorf("first page lists %d entries, want %d", c, historyPageSize)
	}
	i := strings.Index(first, `<a href="/repos/acme/widgets/history?`)
	if i < 0 || !strings.Contains(first, "Older →") {
		t.Fatalf("no link to older entries:\n%s", first)
	}
	next := first[i+len(`<a href="`):]
	next = strings.ReplaceAll(next[:strings.Index(next, `"`)], "&amp;", "&")
	second := d.page(next)
	if c := strings.Count(second, `class="page"`); c != 10 || !strings.Contains(second, "Change 60") || strings.Contains(second, ">Change 50<") ||
		strings.Contains(second, "Older →") {
		t.Errorf("second page (%s) lists %d entries:\n%s", next, c, second)
	}

	until := d.page(base + "&until=2026-03-08T12:00&since=2026-03-06T12:00")
	if !strings.Contains(until, ">Change 3<") || !strings.Contains(until, ">Change 4<") || strings.Contains(until, ">Change 2<") ||
		strings.Contains(until, ">Change 5<") {
		t.Errorf("time range ignored:\n%s", until)
	}

	for q, want := range map[string]string{
		"&state=done":                        `state`,
		"&since=yesterday":                   `since: "yesterday" is not a date`,
		"&since=2026-03-02&until=2026-03-01": "must be before until",
		"&after=nonsense":                    "after:",
	} {
		rec := d.do("GET", base+q, nil)
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s: %d %s", q, rec.Code, rec.Body)
		}
	}
	if rec := d.do("GET", "/repos/acme/widgets/history?branch=dev", nil); rec.Code != http.StatusNotFound {
		t.Errorf("unknown queue: %d", rec.Code)
	}
}
