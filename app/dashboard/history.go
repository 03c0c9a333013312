package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// historyPageSize is how many entries one page of history lists.
const historyPageSize = 50

// historyFilter is the history page's query: ?branch=…&state=…&author=…
// &since=…&until=…&after=<RFC 3339 time>,<entry ID>.
type historyFilter struct {
	Branch string
	State  string
	Author string
	Since  string
	Until  string
	q      queue.EntryQuery
}

// historyRow is one entry of the history.
type historyRow struct {
	E         *queue.Entry
	Page      string
	URL       string
	AuthorURL string
	// InQueue is submitted → ended (or → now while active).
	InQueue time.Duration
}

type historyView struct {
	Queue  *queue.Queue
	Filter historyFilter
	States []queue.EntryState
	Rows   []historyRow
	// Next is the link to the following page ("" on the last one).
	Next       string
	QueuePage  string
	ChartsPage string
}

// parseHistoryFilter reads and checks the filters; an error names the bad
// parameter.
func parseHistoryFilter(v url.Values, queueID int64) (historyFilter, error) {
	f := historyFilter{Branch: v.Get("branch"), State: v.Get("state"), Author: strings.TrimSpace(v.Get("author")),
		Since: v.Get("since"), Until: v.Get("until")}
	f.q = queue.EntryQuery{QueueID: queueID, Author: f.Author, Limit: historyPageSize + 1}
	if f.State != "" {
		st, err := queue.ParseEnum("state", f.State, queue.AllEntryStates...)
		if err != nil {
			return f, err
		}
		f.q.States = []queue.EntryState{st}
	}
	var err error
	if f.q.Since, err = parseFilterTime("since", f.Since); err != nil {
		return f, err
	}
	if f.q.Until, err = parseFilterTime("until", f.Until); err != nil {
		return f, err
	}
	if !f.q.Since.IsZero() && !f.q.Until.IsZero() && !f.q.Since.Before(f.q.Until) {
		return f, fmt.Errorf("since (%s) must be before until (%s)", f.Since, f.Until)
	}
	if after := v.Get("after"); after != "" {
		at, id, ok := strings.Cut(after, ",")
		t, err := time.Parse(time.RFC3339Nano, at)
		if !ok || id == "" || err != nil {
			return f, fmt.Errorf("after: %q is not <time>,<entry id>", after)
		}
		f.q.AfterAt, f.q.AfterID = t, id
	}
	return f, nil
}

// parseFilterTime accepts a date (2006-01-02), a browser's datetime-local
// (2006-01-02T15:04) or RFC 3339, all in UTC unless an offset is given.
func parseFilterTime(name, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%s: %q is not a date (2006-01-02), a time (2006-01-02T15:04) or RFC 3339", name, s)
}

// historyDashboard lists a queue's entries, ended or not, newest first,
// filtered by state, PR author and time range (of their last activity: when
// they ended, or were submitted while active), 50 a page. The entries are
// kept for good; each links to its PR's timeline. Bad filters answer 400
// saying which.
func (d *Dashboard) historyDashboard(w http.ResponseWriter, r *http.Request) {
	q, ok := d.pageQueue(w, r, "history")
	if !ok {
		return
	}
	f, err := parseHistoryFilter(r.URL.Query(), q.ID)
	if err != nil {
		http.Error(w, "bad filter: "+err.Error(), http.StatusBadRequest)
		return
	}
	entries, err := d.reads.ListEntries(r.Context(), f.q)
	if err != nil {
		internalError(w, r, "history: failed to list entries", err)
		return
	}
	repo, gh, now := q.Key.Repo, d.links(q.Key.Repo), d.clock()
	view := historyView{Queue: q, Filter: f, States: queue.AllEntryStates,
		QueuePage: repoPagePath(repo), ChartsPage: queuePagePath(q, "charts")}
	if len(entries) > historyPageSize {
		last := entries[historyPageSize-1]
		next := r.URL.Query()
		next.Set("after", last.ActivityAt().UTC().Format(time.RFC3339Nano)+","+last.ID)
		view.Next = r.URL.Path + "?" + next.Encode()
		entries = entries[:historyPageSize]
	}
	for _, e := range entries {
		end := e.ConcludedAt
		if end.IsZero() {
			end = now
		}
		row := historyRow{E: e, Page: readside.PRPagePath(repo, e.PRNumber), URL: gh.pull(repo, e.PRNumber)}
		if !e.SubmittedAt.IsZero() {
			row.InQueue = end.Sub(e.SubmittedAt)
		}
		row.AuthorURL = gh.user(e.PR.Author)
		view.Rows = append(view.Rows, row)
	}
	d.render(w, r, http.StatusOK, historyTmpl, "layout", pageData{Title: "History of " + q.Key.String(),
		Viewer: viewerFrom(r.Context()), Body: view})
}
