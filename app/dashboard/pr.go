package dashboard

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/mergequeue/mq/queue"
)

// prHistoryDays is how far back a PR's page reads its queues' decisions.
const prHistoryDays = 30

type prView struct {
	Repo     queue.Repo
	RepoPage string
	Number   int
	Title    string
	URL      string
	Queues   []prQueueView
	Days     int
}

type prQueueView struct {
	Queue          *queue.Queue
	Entry          *queue.Entry
	AuthorURL      string
	MergeCommitURL string // set once merged
	Est            Estimate
	Events         []queue.Event
}

// prDashboard shows one PR in every queue of its repository: its state,
// where it stands and the timeline of the queue's decisions about it. The
// PR's check run and status comment link here. 404 when the viewer may not
// read the repository. It updates itself (/fragments/prs/…).
func (d *Dashboard) prDashboard(w http.ResponseWriter, r *http.Request) {
	view, ok := d.prPage(w, r)
	if !ok {
		return
	}
	d.render(w, r, http.StatusOK, prTmpl, "layout", pageData{Title: view.Repo.FullName() + " #" + strconv.Itoa(view.Number),
		Viewer: viewerFrom(r.Context()), Live: "/fragments" + r.URL.Path, Body: view})
}

// prFragment is the PR page's queues alone, for live.js.
func (d *Dashboard) prFragment(w http.ResponseWriter, r *http.Request) {
	if view, ok := d.prPage(w, r); ok {
		d.renderFragment(w, r, prTmpl, "prqueues", view)
	}
}

// prPage reads the PR page's view, or answers the error itself.
func (d *Dashboard) prPage(w http.ResponseWriter, r *http.Request) (*prView, bool) {
	ctx := r.Context()
	n, err := strconv.Atoi(r.PathValue("number"))
	repo, ok := d.pathRepo(r)
	if err != nil || n <= 0 || !ok || !viewerFrom(ctx).Allows(repo) {
		http.Error(w, "not found", http.StatusNotFound)
		return nil, false
	}
	fail := func(what string, err error) (*prView, bool) {
		internalError(w, r, "PR page: failed to "+what, err)
		return nil, false
	}
	queues, err := d.reads.ListQueues(ctx)
	if err != nil {
		return fail("list queues", err)
	}
	gh := d.links(repo)
	view := &prView{Repo: repo, RepoPage: repoPagePath(repo), Number: n, URL: gh.pull(repo, n), Days: prHistoryDays}
	for _, q := range queues {
		if q.Key.Repo.Fold() != repo.Fold() {
			continue
		}
		v := prQueueView{Queue: q}
		e, err := d.reads.GetEntry(ctx, q.ID, n)
		switch {
		case err == nil:
			v.Entry = e
			view.Title = e.PR.Title
			v.AuthorURL = gh.user(e.PR.Author)
			if e.State == queue.StateMerged && e.PR.MergeCommitSHA != "" {
				v.MergeCommitURL = gh.commit(repo, e.PR.MergeCommitSHA)
			}
		case !errors.Is(err, queue.ErrNotFound):
			return fail("load the entry", err)
		}
		if v.Entry != nil {
			ests, err := d.reads.Estimates(ctx, q)
			if err != nil {
				return fail("estimate", err)
			}
			v.Est = ests[v.Entry.ID]
			events, err := d.reads.ListEvents(ctx, q.ID, d.clock().Add(-prHistoryDays*24*time.Hour))
			if err != nil {
				return fail("list events", err)
			}
			for _, ev := range events {
				if ev.EntryID == v.Entry.ID {
					v.Events = append(v.Events, ev)
				}
			}
		}
		view.Queues = append(view.Queues, v)
	}
	return view, true
}
