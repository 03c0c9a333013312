package app

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

// dashboardRoutes mounts the dashboard: every page and fragment behind
// guard (dashboard.access), the sign-in pages and the static assets open.
func (a *App) dashboardRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", a.guard(a.dashboard))
	mux.HandleFunc("GET /repos/{owner}/{repo}", a.guard(a.repoDashboard))
	mux.HandleFunc("GET /repos/{owner}/{repo}/history", a.guard(a.historyDashboard))
	mux.HandleFunc("GET /repos/{owner}/{repo}/charts", a.guard(a.chartsDashboard))
	mux.HandleFunc("GET /prs/{owner}/{repo}/{number}", a.guard(a.prDashboard))
	mux.HandleFunc("GET /fragments/queues", a.guard(a.queuesFragment))
	mux.HandleFunc("GET /fragments/prs/{owner}/{repo}/{number}", a.guard(a.prFragment))
	mux.HandleFunc("GET /login", a.loginPage)
	// The two forms: same-origin only (CSRF), small url-encoded bodies.
	csrf := a.crossOrigin()
	mux.Handle("POST /login", csrf.Handler(smallForm(a.login)))
	mux.Handle("POST /logout", csrf.Handler(smallForm(a.logout)))
	mux.HandleFunc("GET /login/github", a.githubLogin)
	mux.HandleFunc("GET /login/github/callback", a.githubCallback)
	mux.Handle("GET /static/", staticAssets())
}

// dashboard shows every queue the viewer may read, by repository: each
// queue's chain of test runs, its active entries in queue order and its
// latest decisions with their reasons, so a PR that left the queue can be
// explained. It updates itself (live.js and /fragments/queues).
func (a *App) dashboard(w http.ResponseWriter, r *http.Request) {
	repos, err := a.visibleQueues(r.Context(), viewerFrom(r.Context()), nil)
	if err != nil {
		internalError(w, r, "dashboard: failed to read the queues", err)
		return
	}
	a.render(w, r, http.StatusOK, homeTmpl, "layout", pageData{Title: "Merge queues",
		Viewer: viewerFrom(r.Context()), Live: "/fragments/queues", Body: map[string]any{"Repos": repos}})
}

// repoDashboard is the dashboard of one repository's queues; 404 when the
// repository has none the viewer may read.
func (a *App) repoDashboard(w http.ResponseWriter, r *http.Request) {
	repo, ok := a.pathRepo(r)
	if !ok || !viewerFrom(r.Context()).Allows(repo) {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	repos, err := a.visibleQueues(r.Context(), viewerFrom(r.Context()), &repo)
	if err != nil {
		internalError(w, r, "dashboard: failed to read the queues", err)
		return
	}
	if len(repos) == 0 {
		http.Error(w, "no queue for "+repo.FullName(), http.StatusNotFound)
		return
	}
	a.render(w, r, http.StatusOK, homeTmpl, "layout", pageData{Title: repo.FullName(), Viewer: viewerFrom(r.Context()),
		Live: "/fragments/queues?repo=" + url.QueryEscape(repo.FullName()), Body: map[string]any{"Repos": repos}})
}

// pathRepo reads {owner}/{repo} of the path on the configured host.
func (a *App) pathRepo(r *http.Request) (queue.Repo, bool) {
	return a.repoNamed(r.PathValue("owner"), r.PathValue("repo"))
}

// repoNamed is owner/name on the configured host (queue.DefaultHost when
// unset), and whether that is a valid repository.
func (a *App) repoNamed(owner, name string) (queue.Repo, bool) {
	host := queue.DefaultHost
	if a.cfg != nil && a.cfg.GitHub.Host != "" {
		host = a.cfg.GitHub.Host
	}
	repo := queue.Repo{Host: host, Owner: owner, Name: name}
	return repo, repo.Validate() == nil
}

// pageQueue finds the queue of the path's repository named by the branch
// parameter, if the viewer may read it, or answers 404 (500 on a store
// failure, logged under page) itself.
func (a *App) pageQueue(w http.ResponseWriter, r *http.Request, page string) (*queue.Queue, bool) {
	repo, ok := a.pathRepo(r)
	if !ok || !viewerFrom(r.Context()).Allows(repo) {
		http.Error(w, "not found: no such queue (?branch=)", http.StatusNotFound)
		return nil, false
	}
	q, err := a.store.GetQueue(r.Context(), queue.QueueKey{Repo: repo, Branch: r.URL.Query().Get("branch")})
	if errors.Is(err, queue.ErrNotFound) {
		http.Error(w, "not found: no such queue (?branch=)", http.StatusNotFound)
		return nil, false
	}
	if err != nil {
		internalError(w, r, page+": failed to load the queue", err)
		return nil, false
	}
	return q, true
}

// internalError logs err under msg and answers 500 without details.
func internalError(w http.ResponseWriter, r *http.Request, msg string, err error) {
	zerolog.Ctx(r.Context()).Error().Err(err).Msg(msg)
	http.Error(w, "internal error", http.StatusInternalServerError)
}
