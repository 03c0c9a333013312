package api

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// listedShape is getSubmittedPullRequest's shape (SPEC §7) with the
// optional queuePosition and testRunId present.
func listedShape() map[string]string {
	s := map[string]string{"queuePosition": "integer", "testRunId": "string"}
	for k, v := range submittedShape {
		s[k] = v
	}
	return s
}

func listed(n int, activity time.Time) *queue.SubmittedPR {
	e := testEntry(n, queue.StateTesting, 100, "medium", false)
	e.SubmittedAt, e.RunID = activity, fmt.Sprintf("run-%d", n)
	return &queue.SubmittedPR{Entry: e, QueuePosition: 1, TestRunID: e.RunID, IsCurrentlySubmitted: true,
		Readiness: queue.Readiness{GitHubMergeability: "mergeable", DoesBaseBranchMatch: true}}
}

func TestListPullRequestsShapeAndPaging(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var all []*queue.SubmittedPR
	for i := range 5 {
		all = append(all, listed(20-i, testNow.Add(-time.Duration(i)*time.Minute)))
	}
	h.svc.configureMore(func(m *moreFakes) { m.listed = all })

	m := decodeObject(t, h.post("listPullRequests", body(`"take":2`)))
	wantShape(t, "page", m, map[string]string{"pullRequests": "array", "nextCursor": "string"})
	prs := m["pullRequests"].([]any)
	if len(prs) != 2 {
		t.Fatalf("page has %d entries, want 2", len(prs))
	}
	for i, p := range prs {
		wantShape(t, fmt.Sprintf("pullRequests[%d]", i), p.(map[string]any), listedShape())
		wantShape(t, fmt.Sprintf("pullRequests[%d].readiness", i), p.(map[string]any)["readiness"].(map[string]any), readinessShape)
	}
	at, id, err := decodeCursor(m["nextCursor"].(string))
	if err != nil || !at.Equal(all[1].Entry.SubmittedAt) || id != all[1].Entry.ID {
		t.Errorf("cursor decodes to %v %q %v, want the page's last entry", at, id, err)
	}

	h.svc.configureMore(func(m *moreFakes) { m.listed = all[:3] })
	m = decodeObject(t, h.post("listPullRequests", body(`"take":3`)))
	if _, ok := m["nextCursor"]; ok {
		t.Errorf("nextCursor present on the last page")
	}
	if n := len(m["pullRequests"].([]any)); n != 3 {
		t.Errorf("last page has %d entries, want 3", n)
	}

	h.svc.configureMore(func(m *moreFakes) { m.listed = nil })
	r := h.post("listPullRequests", body())
	if r.status != http.StatusOK || r.body != `{"pullRequests":[]}` {
		t.Errorf("empty listing = %d %s", r.status, r.body)
	}
}

func TestListPullRequestsQuery(t *testing.T) {
	t.Parallel()
	cursorAt := time.Date(2026, 7, 20, 10, 0, 0, 123456789, time.UTC)
	cursor := encodeCursor(cursorAt, "entry-9")
	tests := []struct {
		name  string
		extra []string
		want  queue.EntryQuery
	}{
		{"defaults", nil, queue.EntryQuery{Limit: 51}},
		{"one state any case", []string{`"state":"MERGED"`}, queue.EntryQuery{States: []queue.EntryState{queue.StateMerged}, Limit: 51}},
		{"several states", []string{`"state":["not_ready","Pending_Failure"]`},
			queue.EntryQuery{States: []queue.EntryState{queue.StateNotReady, queue.StatePendingFailure}, Limit: 51}},
		{"null state", []string{`"state":null`}, queue.EntryQuery{Limit: 51}},
		{"take bounds", []string{`"take":100`}, queue.EntryQuery{Limit: 101}},
		{"take one", []string{`"take":1`}, queue.EntryQuery{Limit: 2}},
		{"since and until with milliseconds", []string{`"since":"2026-07-01T00:00:00.000Z"`, `"until":"2026-07-02T12:30:00.250Z"`},
			queue.EntryQuery{Since: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 7, 2, 12, 30, 0, 250e6, time.UTC), Limit: 51}},
		{"offset zone converted", []string{`"since":"2026-07-01T02:00:00+02:00"`},
			queue.EntryQuery{Since: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), Limit: 51}},
		{"no zone is UTC", []string{`"since":"2026-07-01T08:15:00"`},
			queue.EntryQuery{Since: time.Date(2026, 7, 1, 8, 15, 0, 0, time.UTC), Limit: 51}},
		{"date only", []string{`"until":"2026-07-03"`},
			queue.EntryQuery{Until: time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC), Limit: 51}},
		{"ancient since is unbounded in effect", []string{`"since":"0001-01-01T00:00:00Z"`},
			queue.EntryQuery{Since: time.Unix(0, 0).UTC(), Limit: 51}},
		{"cursor", []string{`"cursor":"` + cursor + `"`}, queue.EntryQuery{AfterAt: cursorAt, AfterID: "entry-9", Limit: 51}},
		{"empty cursor is the first page", []string{`"cursor":""`}, queue.EntryQuery{Limit: 51}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			decodeObject(t, h.post("listPullRequests", body(tt.extra...)))
			var got []queue.EntryQuery
			h.svc.recorded(func(m *moreFakes) { got = m.listQueries })
			if len(got) != 1 || !reflect.DeepEqual(got[0], tt.want) {
				t.Errorf("query = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestListPullRequestsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		extra  []string
		svcErr error
		status int
		want   string
	}{
		{"unknown queue", nil, fmt.Errorf("load: %w", queue.ErrNotFound), http.StatusNotFound, "no queue"},
		{"store failure", nil, errors.New("boom"), http.StatusInternalServerError, "internal error"},
		{"unknown state", []string{`"state":"done"`}, nil, http.StatusBadRequest, `"done" is not one of not_ready`},
		{"unknown state in a list", []string{`"state":["merged","done"]`}, nil, http.StatusBadRequest, `"done"`},
		{"state wrong type", []string{`"state":3`}, nil, http.StatusBadRequest, "invalid field state"},
		{"take zero", []string{`"take":0`}, nil, http.StatusBadRequest, "take"},
		{"take too big", []string{`"take":101`}, nil, http.StatusBadRequest, "between 1 and 100"},
		{"take as string", []string{`"take":"10"`}, nil, http.StatusBadRequest, "take"},
		{"bad since", []string{`"since":"yesterday"`}, nil, http.StatusBadRequest, "invalid field since"},
		{"bad until", []string{`"until":"2026-13-01T00:00:00Z"`}, nil, http.StatusBadRequest, "invalid field until"},
		{"since after until", []string{`"since":"2026-07-02T00:00:00Z"`, `"until":"2026-07-01T00:00:00Z"`}, nil, http.StatusBadRequest, "after until"},
		{"garbage cursor", []string{`"cursor":"%%%"`}, nil, http.StatusBadRequest, "invalid field cursor"},
		{"foreign base64 cursor", []string{`"cursor":"aGVsbG8"`}, nil, http.StatusBadRequest, "invalid field cursor"},
		{"cursor wrong type", []string{`"cursor":7`}, nil, http.StatusBadRequest, "cursor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configureMore(func(m *moreFakes) { m.listErr = tt.svcErr })
			wantError(t, h.post("listPullRequests", body(tt.extra...)), tt.status, tt.want)
		})
	}
}

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 7, 23, 1, 2, 3, 456789012, time.UTC)
	c := encodeCursor(at, "a:b:c")
	if strings.ContainsAny(c, "+/=") {
		t.Errorf("cursor %q is not URL-safe", c)
	}
	gotAt, gotID, err := decodeCursor(c)
	if err != nil || !gotAt.Equal(at) || gotID != "a:b:c" {
		t.Errorf("decode = %v %q %v", gotAt, gotID, err)
	}
}
