package app

import (
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
)

var prPage = template.Must(template.New("pr").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="10">
<title>{{.Repo}} #{{.Number}} in the merge queue</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse;margin-bottom:2rem}
td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}th{background:#f3f3f3}</style>
</head><body><p><a href="/">All queues</a></p><h1>{{.Repo}} #{{.Number}}</h1>
{{range .Queues}}<h2>Queue <code>{{.Queue.Key.Branch}}</code></h2>
{{if .Entry}}<p><b>{{.Entry.State}}</b> ({{.Entry.StateReason}}){{if .Entry.StateReasonDetail}}: {{.Entry.StateReasonDetail}}{{end}}</p>
{{if .Est.Position}}<p>Position {{.Est.Position}} of {{.Est.Of}}{{if not .Est.MergeAt.IsZero}}, expected to merge around {{.Est.MergeAt.UTC.Format "2006-01-02 15:04"}} UTC{{end}}.</p>{{end}}
<table><tr><th>Time (UTC)</th><th>From</th><th>To</th><th>Reason</th><th>Detail</th></tr>
{{range .Events}}<tr><td>{{.At.UTC.Format "2006-01-02 15:04:05"}}</td><td>{{.From}}</td><td>{{.To}}</td><td>{{.Reason}}</td><td>{{.Detail}}</td></tr>
{{else}}<tr><td colspan="5">no decisions in the last {{$.Days}} days</td></tr>{{end}}</table>
{{else}}<p>Never submitted to this queue.</p>{{end}}
{{else}}<p>No queue for this repository.</p>{{end}}
</body></html>`))

// prHistoryDays is how far back a PR's page reads its queues' decisions.
const prHistoryDays = 30

type prQueueView struct {
	Queue  *queue.Queue
	Entry  *queue.Entry
	Est    engine.Estimate
	Events []queue.Event
}

// prDashboard shows one PR in every queue of its repository: its state,
// where it stands and the timeline of the queue's decisions about it. The
// PR's check run and status comment link here.
func (a *App) prDashboard(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	n, err := strconv.Atoi(r.PathValue("number"))
	repo := queue.Repo{Host: a.cfg.GitHub.Host, Owner: r.PathValue("owner"), Name: r.PathValue("repo")}
	if err != nil || n <= 0 || repo.Validate() != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	fail := func(what string, err error) {
		a.log.Error().Err(err).Msg("PR page: failed to " + what)
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
	queues, err := a.store.ListQueues(ctx)
	if err != nil {
		fail("list queues", err)
		return
	}
	var views []prQueueView
	for _, q := range queues {
		if q.Key.Repo.Fold() != repo.Fold() {
			continue
		}
		v := prQueueView{Queue: q}
		e, err := a.store.GetEntry(ctx, q.ID, n)
		switch {
		case err == nil:
			v.Entry = e
		case !errors.Is(err, queue.ErrNotFound):
			fail("load the entry", err)
			return
		}
		if v.Entry != nil {
			ests, err := a.svc.Estimates(ctx, q)
			if err != nil {
				fail("estimate", err)
				return
			}
			v.Est = ests[v.Entry.ID]
			events, err := a.store.ListEvents(ctx, q.ID, a.now().Add(-prHistoryDays*24*time.Hour))
			if err != nil {
				fail("list events", err)
				return
			}
			for _, ev := range events {
				if ev.EntryID == v.Entry.ID {
					v.Events = append(v.Events, ev)
				}
			}
		}
		views = append(views, v)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	err = prPage.Execute(w, map[string]any{"Repo": repo.FullName(), "Number": n, "Queues": views, "Days": prHistoryDays})
	if err != nil {
		a.log.Error().Err(err).Msg("PR page: failed to render")
	}
}
