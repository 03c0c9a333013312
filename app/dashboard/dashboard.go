package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/queue"
)

// Access says who may read the dashboard (dashboard.access).
type Access string

// Access modes.
const (
	// AccessToken requires a live API token; a token scoped to some
	// repositories shows only those.
	AccessToken Access = "token"
	// AccessPublic lets anyone who reaches the port read every queue.
	AccessPublic Access = "public"
	// AccessGitHub signs readers in with GitHub (the App's OAuth web
	// flow); each sees the queues of the repositories they can read. API
	// tokens are accepted too.
	AccessGitHub Access = "github"
)

// Config is what the dashboard takes of the process's configuration.
type Config struct {
	// Access is who may read it ("" = AccessToken: a bare configuration
	// never exposes private data).
	Access Access
	// Host is the repository host of every queue ("" = queue.DefaultHost).
	Host string
	// WebURL is GitHub's web URL, which links point to ("" =
	// https://<host>).
	WebURL string
	// PublicURL is the URL users reach the service at: its origin is
	// trusted for forms, an https one makes cookies Secure, and GitHub's
	// sign-in comes back to CallbackURL(PublicURL).
	PublicURL string
}

// Ports are what the dashboard reads and keeps through.
type Ports struct {
	// Reads are the queues' reads its pages make.
	Reads QueueReads
	// Sessions keeps the signed-in browsers.
	Sessions SessionStore
	// Tokens are the API tokens readers sign in with.
	Tokens apitoken.Store
	// SignIn is GitHub's side of the sign-in; required with AccessGitHub.
	SignIn GitHubSignIn
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Dashboard is the web dashboard: the pages and fragments of SPEC §9 that
// show the queues (behind the configured access), the sign-in pages and
// the static assets. It reads through its ports only. Safe for concurrent
// use.
type Dashboard struct {
	cfg      Config
	reads    QueueReads
	sessions SessionStore
	tokens   apitoken.Store
	signIn   GitHubSignIn
	now      func() time.Time
}

// New returns the dashboard of cfg over ports. It refuses an unknown
// access mode, a missing port, and AccessGitHub without a SignIn.
func New(cfg Config, ports Ports) (*Dashboard, error) {
	switch cfg.Access {
	case "":
		cfg.Access = AccessToken
	case AccessToken, AccessPublic, AccessGitHub:
	default:
		return nil, fmt.Errorf("invalid dashboard access %q: one of token, github, public", cfg.Access)
	}
	if ports.Reads == nil || ports.Sessions == nil || ports.Tokens == nil {
		return nil, errors.New("invalid dashboard ports: Reads, Sessions and Tokens are required")
	}
	if cfg.Access == AccessGitHub && ports.SignIn == nil {
		return nil, errors.New("invalid dashboard ports: access github needs a GitHub sign-in")
	}
	if cfg.Host == "" {
		cfg.Host = queue.DefaultHost
	}
	if ports.Now == nil {
		ports.Now = time.Now
	}
	return &Dashboard{cfg: cfg, reads: ports.Reads, sessions: ports.Sessions, tokens: ports.Tokens, signIn: ports.SignIn,
		now: ports.Now}, nil
}

// Routes mounts the dashboard on mux: every page and fragment behind the
// access guard, the sign-in pages and the static assets open.
func (d *Dashboard) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", d.guard(d.dashboard))
	mux.HandleFunc("GET /repos/{owner}/{repo}", d.guard(d.repoDashboard))
	mux.HandleFunc("GET /repos/{owner}/{repo}/history", d.guard(d.historyDashboard))
	mux.HandleFunc("GET /repos/{owner}/{repo}/charts", d.guard(d.chartsDashboard))
	mux.HandleFunc("GET "+prPagePattern, d.guard(d.prDashboard))
	mux.HandleFunc("GET /fragments/queues", d.guard(d.queuesFragment))
	mux.HandleFunc("GET /fragments"+prPagePattern, d.guard(d.prFragment))
	mux.HandleFunc("GET /login", d.loginPage)
	// The two forms: same-origin only (CSRF), small url-encoded bodies.
	csrf := d.crossOrigin()
	mux.Handle("POST /login", csrf.Handler(smallForm(d.login)))
	mux.Handle("POST /logout", csrf.Handler(smallForm(d.logout)))
	mux.HandleFunc("GET "+githubLoginPath, d.githubLogin)
	mux.HandleFunc("GET "+githubCallbackPath, d.githubCallback)
	mux.Handle("GET /static/", staticAssets())
}

// prPagePattern is the route of a PR's page (readside.PRPagePath).
const prPagePattern = "/prs/{owner}/{repo}/{number}"

// dashboard shows every queue the viewer may read, by repository: each
// queue's chain of test runs, its active entries in queue order and its
// latest decisions with their reasons, so a PR that left the queue can be
// explained. It updates itself (live.js and /fragments/queues).
func (d *Dashboard) dashboard(w http.ResponseWriter, r *http.Request) {
	repos, err := d.visibleQueues(r.Context(), viewerFrom(r.Context()), nil)
	if err != nil {
		internalError(w, r, "dashboard: failed to read the queues", err)
		return
	}
	d.render(w, r, http.StatusOK, homeTmpl, "layout", pageData{Title: "Merge queues",
		Viewer: viewerFrom(r.Context()), Live: "/fragments/queues", Body: map[string]any{"Repos": repos}})
}

// repoDashboard is the dashboard of one repository's queues; 404 when the
// repository has none the viewer may read.
func (d *Dashboard) repoDashboard(w http.ResponseWriter, r *http.Request) {
	repo, ok := d.pathRepo(r)
	if !ok || !viewerFrom(r.Context()).Allows(repo) {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	repos, err := d.visibleQueues(r.Context(), viewerFrom(r.Context()), &repo)
	if err != nil {
		internalError(w, r, "dashboard: failed to read the queues", err)
		return
	}
	if len(repos) == 0 {
		http.Error(w, "no queue for "+repo.FullName(), http.StatusNotFound)
		return
	}
	d.render(w, r, http.StatusOK, homeTmpl, "layout", pageData{Title: repo.FullName(), Viewer: viewerFrom(r.Context()),
		Live: "/fragments/queues?repo=" + url.QueryEscape(repo.FullName()), Body: map[string]any{"Repos": repos}})
}

// pathRepo reads {owner}/{repo} of the path on the configured host.
func (d *Dashboard) pathRepo(r *http.Request) (queue.Repo, bool) {
	return d.repoNamed(r.PathValue("owner"), r.PathValue("repo"))
}

// repoNamed is owner/name on the configured host, and whether that is a
// valid repository.
func (d *Dashboard) repoNamed(owner, name string) (queue.Repo, bool) {
	repo := queue.Repo{Host: d.cfg.Host, Owner: owner, Name: name}
	return repo, repo.Validate() == nil
}

// pageQueue finds the queue of the path's repository named by the branch
// parameter, if the viewer may read it, or answers 404 (500 on a store
// failure, logged under page) itself.
func (d *Dashboard) pageQueue(w http.ResponseWriter, r *http.Request, page string) (*queue.Queue, bool) {
	repo, ok := d.pathRepo(r)
	if !ok || !viewerFrom(r.Context()).Allows(repo) {
		http.Error(w, "not found: no such queue (?branch=)", http.StatusNotFound)
		return nil, false
	}
	q, err := d.reads.Queue(r.Context(), queue.QueueKey{Repo: repo, Branch: r.URL.Query().Get("branch")})
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
