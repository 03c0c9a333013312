package app

import (
	"html/template"
	"net/http"
	"slices"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
	"github.com/mergequeue/mq/queue/service"
)

var dashboardPage = template.Must(template.New("dashboard").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
<title>Merge queue</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse;margin-bottom:2rem}
td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}th{background:#f3f3f3}.paused{color:#b00}</style>
</head><body><h1>Merge queue</h1>
{{range .}}<h2>{{.Queue.Key.Repo.FullName}} → <code>{{.Queue.Key.Branch}}</code>
 <small>({{.Queue.State}}, {{.Queue.Settings.Mode}}, concurrency {{.Queue.Settings.Concurrency}})</small></h2>
{{if .Queue.PausedReason}}<p class="paused">{{.Queue.PausedReason}}</p>{{end}}
<table><tr><th>Position</th><th>PR</th><th>Title</th><th>State</th><th>Reason</th><th>Detail</th><th>Priority</th><th>Expected merge (UTC)</th></tr>
{{range .Entries}}<tr><td>{{if .Est.Position}}{{.Est.Position}} of {{.Est.Of}}{{else}}—{{end}}</td>
<td><a href="{{.Page}}">#{{.E.PRNumber}}</a></td><td>{{.E.PR.Title}}</td><td>{{.E.State}}</td>
<td>{{.E.StateReason}}</td><td>{{.E.StateReasonDetail}}</td><td>{{.E.PriorityName}}</td>
<td>{{if not .Est.MergeAt.IsZero}}{{.Est.MergeAt.UTC.Format "2006-01-02 15:04"}}{{end}}</td></tr>
{{else}}<tr><td colspan="8">empty</td></tr>{{end}}</table>
<h3>Recent decisions</h3>
<table><tr><th>Time (UTC)</th><th>PR</th><th>From</th><th>To</th><th>Reason</th><th>Detail</th></tr>
{{range .Events}}<tr><td>{{.At.UTC.Format "2006-01-02 15:04:05"}}</td><td>#{{.PRNumber}}</td><td>{{.From}}</td><td>{{.To}}</td>
<td>{{.Reason}}</td><td>{{.Detail}}</td></tr>
{{else}}<tr><td colspan="6">none in the last day</td></tr>{{end}}</table>
{{else}}<p>No queues yet. Create one with <code>POST /v1/createQueue</code>.</p>{{end}}
</body></html>`))

type dashboardQueue struct {
	Queue   *queue.Queue
	Entries []dashboardEntry
	// Events are the latest state changes, newest first.
	Events []queue.Event
}

// dashboardEntry is an active entry with where it stands (1-based
// position, expected merge) and its PR's page.
type dashboardEntry struct {
	E    *queue.Entry
	Est  engine.Estimate
	Page string
}

// dashboardEvents is how many recent state changes a queue shows.
const dashboardEvents = 30

// dashboard shows every queue with its active entries (admitted ones in
// queue order, then those not ready yet) and its latest decisions with
// their reasons, so a PR that left the queue can be explained. It
// refreshes itself.
func (a *App) dashboard(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	queues, err := a.store.ListQueues(ctx)
	if err != nil {
		a.log.Error().Err(err).Msg("dashboard: failed to list queues")
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	var view []dashboardQueue
	for _, q := range queues {
		entries, err := a.store.ListActiveEntries(ctx, q.ID)
		if err != nil {
			a.log.Error().Err(err).Msg("dashboard: failed to list entries")
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		ests, err := a.svc.Estimates(ctx, q)
		if err != nil {
			a.log.Error().Err(err).Msg("dashboard: failed to estimate")
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		ordered := (&engine.Snapshot{Entries: entries}).Ordered()
		for _, e := range entries {
			if !e.Admitted() {
				ordered = append(ordered, e)
			}
		}
		rows := make([]dashboardEntry, len(ordered))
		for i, e := range ordered {
			rows[i] = dashboardEntry{E: e, Est: ests[e.ID], Page: service.PRPagePath(q.Key.Repo, e.PRNumber)}
		}
		events, err := a.store.ListEvents(ctx, q.ID, time.Now().Add(-24*time.Hour))
		if err != nil {
			a.log.Error().Err(err).Msg("dashboard: failed to list events")
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		events = events[max(len(events)-dashboardEvents, 0):]
		slices.Reverse(events)
		view = append(view, dashboardQueue{Queue: q, Entries: rows, Events: events})
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := dashboardPage.Execute(w, view); err != nil {
		a.log.Error().Err(err).Msg("dashboard: failed to render")
	}
}
