package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
	"github.com/mergequeue/mq/queue/service"
	"github.com/mergequeue/mq/queue/sqlite"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
)

// routesEnv is an App with only its routes, the dashboard wired as New
// wires it (newDashboard), on a real store and a fixed clock, GitHub at
// https://gh.example.
type routesEnv struct {
	t     *testing.T
	store *sqlite.Store
	app   *App
	gh    *githubx.Client // the GitHub sign-in's, with access github
	mux   http.Handler
	now   time.Time
}

func newRoutesEnv(t *testing.T, access DashboardAccess) *routesEnv {
	t.Helper()
	store := sqlitetest.Open(t)
	e := &routesEnv{t: t, store: store, now: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	clock := func() time.Time { return e.now }
	e.app = &App{store: store, log: zerolog.New(io.Discard), now: clock, metrics: newMetrics(),
		svc:   service.NewService(store, nil, service.Options{Now: clock}),
		reads: readside.New(store, readside.Options{Now: clock}),
		cfg: &Config{GitHub: GitHubConfig{Host: "github.com", WebURL: "https://gh.example/"},
			Server: ServerConfig{PublicURL: "http://localhost:8080"}, Dashboard: DashboardConfig{Access: access}}}
	e.rewire()
	return e
}

// rewire builds the dashboard and the routes again from the App's
// configuration.
func (e *routesEnv) rewire() {
	e.t.Helper()
	var err error
	if e.app.dash, err = newDashboard(e.app.cfg, e.store, e.app.reads, e.gh, e.app.now); err != nil {
		e.t.Fatal(err)
	}
	e.mux = e.app.routes(http.NotFoundHandler(), http.NotFoundHandler())
}

func (e *routesEnv) queue(owner, name, branch string) *queue.Queue {
	e.t.Helper()
	q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: owner, Name: name}, Branch: branch},
		State: queue.QueueRunning, Settings: queue.DefaultSettings(), NextSeq: 1, CreatedAt: e.now, UpdatedAt: e.now}
	if err := e.store.CreateQueue(context.Background(), q); err != nil {
		e.t.Fatal(err)
	}
	return q
}

// do serves one body-less request; header pairs are name, value.
func (e *routesEnv) do(method, path string, header ...string) *httptest.ResponseRecorder {
	e.t.Helper()
	r := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	e.mux.ServeHTTP(rec, r)
	return rec
}

// signIn posts an API token to /login and returns the session cookie's
// value.
func (e *routesEnv) signIn(secret string) string {
	e.t.Helper()
	r := httptest.NewRequest("POST", "/login", strings.NewReader(url.Values{"token": {secret}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	e.mux.ServeHTTP(rec, r)
	for _, c := range rec.Result().Cookies() {
		if c.Name == "mq_session" && c.MaxAge > 0 {
			return c.Value
		}
	}
	e.t.Fatalf("sign-in: %d, no session cookie", rec.Code)
	return ""
}

// page GETs path and wants 200.
func (e *routesEnv) page(path string) string {
	e.t.Helper()
	rec := e.do("GET", path)
	if rec.Code != http.StatusOK {
		e.t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// The dashboard as the App wires it lists a queue's entries in the order
// the queue tests and merges them, as the queue's estimates place them
// (priority first, then submission), the ones not admitted yet after
// them, with their 1-based positions.
func TestWiredDashboardShowsEntriesInQueueOrder(t *testing.T) {
	e := newRoutesEnv(t, DashboardPublic)
	ctx := context.Background()
	q := e.queue("acme", "widgets", "main")
	for i, c := range []struct {
		n        int
		priority int
		admitted bool
	}{{41, queue.PriorityMedium, true}, {42, queue.PriorityHigh, true}, {43, queue.PriorityHigh, false}, {44, queue.PriorityLow, true}} {
		en := &queue.Entry{ID: fmt.Sprintf("e%d", c.n), QueueID: q.ID, PRNumber: c.n, State: queue.StatePending,
			StateReason: queue.ReasonAdmitted, Seq: int64(i + 1), SubmittedAt: e.now, StateChangedAt: e.now,
			PriorityValue: c.priority, PR: queue.PRFacts{Title: fmt.Sprintf("Title %d", c.n)}}
		if c.admitted {
			en.AdmittedAt = e.now
		} else {
			en.State = queue.StateNotReady
		}
		if err := e.store.SaveEntry(ctx, en); err != nil {
			t.Fatal(err)
		}
	}
	page := e.page("/")
	at := func(s string) int {
		i := strings.Index(page, s)
		if i < 0 {
			t.Fatalf("page lacks %q:\n%s", s, page)
		}
		return i
	}
	if p42, p41, p44, p43 := at(">Title 42<"), at(">Title 41<"), at(">Title 44<"), at(">Title 43<"); !(p42 < p41 && p41 < p44 && p44 < p43) {
		t.Errorf("entries not in queue order (42, 41, 44, then 43 not admitted):\n%s", page)
	}
	for _, w := range []string{"<td>1 of 3</td>", "<td>2 of 3</td>", "<td>3 of 3</td>"} {
		at(w)
	}
}

// The links the queue writes on GitHub (its comments and check runs) to a
// PR's page reach the dashboard's PR page.
func TestQueueLinksReachThePRPage(t *testing.T) {
	e := newRoutesEnv(t, DashboardPublic)
	e.queue("acme", "widgets", "main")
	repo := queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}
	if page := e.page(readside.PRPagePath(repo, 7)); !strings.Contains(page, "https://gh.example/acme/widgets/pull/7") {
		t.Errorf("the PR page of #7 does not show it:\n%s", page)
	}
}

// Retention deletes the dashboard sessions that ended and keeps the live
// ones.
func TestRetentionPrunesEndedSessions(t *testing.T) {
	e := newRoutesEnv(t, DashboardToken)
	ctx := context.Background()
	secret, _, err := apitoken.Issue(ctx, e.store, "t", nil, nil, 0, e.now)
	if err != nil {
		t.Fatal(err)
	}
	old := e.signIn(secret)
	e.now = e.now.Add(12 * time.Hour) // a token session's idle limit
	live := e.signIn(secret)
	e.app.pruneSessions(ctx)
	if e.do("GET", "/", "Cookie", "mq_session="+old).Code != http.StatusSeeOther {
		t.Error("an idle session still opens the dashboard")
	}
	if n, err := e.store.PruneSessions(ctx, e.now); err != nil || n != 0 {
		t.Errorf("retention left %d ended sessions (%v)", n, err)
	}
	if rec := e.do("GET", "/", "Cookie", "mq_session="+live); rec.Code != http.StatusOK {
		t.Errorf("a live session was pruned: %d", rec.Code)
	}
}

// The configuration accepts token, github and public, and names the key
// otherwise; github needs the App's OAuth client, whose secret may come
// from the environment.
func TestDashboardAccessConfig(t *testing.T) {
	c := &Config{}
	c.applyDefaults()
	if c.Dashboard.Access != DashboardToken {
		t.Errorf("default access %q", c.Dashboard.Access)
	}
	c.Dashboard.Access = "everyone"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `dashboard.access: "everyone" is not one of token, github, public`) {
		t.Errorf("bad access: %v", err)
	}
	c = &Config{Dashboard: DashboardConfig{Access: DashboardGitHub}}
	c.applyDefaults()
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "dashboard.github.client_id is required") ||
		!strings.Contains(err.Error(), "dashboard.github.client_secret is required") {
		t.Errorf("github access without a client: %v", err)
	}
	c, err = LoadConfig("", func(k string) string {
		if k == EnvDashboardClientSecret {
			return "s3cret"
		}
		return ""
	})
	if err != nil || c.Dashboard.GitHub.ClientSecret != "s3cret" {
		t.Errorf("client secret from the environment: %+v, %v", c.Dashboard, err)
	}
}

// The GitHub calls of a sign-in, as the App wires it, are githubx's: the
// code exchange, GET /user and the listings are counted in
// mq_github_requests_total under their endpoint templates, like every
// other call to GitHub.
func TestGitHubSignInCallsAreCounted(t *testing.T) {
	fake, err := fakegithub.New(fakegithub.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	if err := fake.CreateRepo("acme", "widgets", map[string]string{"README.md": "x\n"}); err != nil {
		t.Fatal(err)
	}
	if err := fake.SetPermission("acme", "widgets", "alice", "read"); err != nil {
		t.Fatal(err)
	}
	e := newRoutesEnv(t, DashboardToken)
	cfg := e.app.cfg
	cfg.Dashboard.Access = DashboardGitHub
	cfg.GitHub.WebURL, cfg.GitHub.V3APIURL, cfg.GitHub.V4APIURL = fake.URL(), fake.URL()+"/", fake.URL()+"/graphql"
	cfg.GitHub.App.IntegrationID, cfg.GitHub.App.PrivateKey = fake.AppID(), string(fake.AppPrivateKeyPEM())
	cfg.Dashboard.GitHub.ClientID, cfg.Dashboard.GitHub.ClientSecret = fake.OAuthClient()
	if e.gh, err = githubx.New(cfg.GitHubClientConfig(), githubx.WithObserver(e.app.metrics.github)); err != nil {
		t.Fatal(err)
	}
	e.rewire()
	e.queue("acme", "widgets", "main")

	start := e.do("GET", "/login/github")
	var state string
	for _, c := range start.Result().Cookies() {
		if c.Name == "mq_oauth_state" {
			state = c.Value
		}
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.Get(start.Header().Get("Location") + "&login=alice")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	back, err := url.Parse(res.Header.Get("Location"))
	if err != nil || back.Path != "/login/github/callback" || state == "" {
		t.Fatalf("GitHub's authorize page: %d → %q, state cookie %q", res.StatusCode, res.Header.Get("Location"), state)
	}
	if rec := e.do("GET", back.RequestURI(), "Cookie", "mq_oauth_state="+state); rec.Code != http.StatusOK ||
		!strings.Contains(rec.Body.String(), "Signed in as alice") {
		t.Fatalf("callback: %d\n%s", rec.Code, rec.Body)
	}
	fams := gather(t, e.app.metrics.registry)
	for _, c := range []struct{ method, endpoint string }{
		{"POST", "/login/oauth/access_token"}, {"GET", "/user"}, {"GET", "/user/installations"},
		{"GET", "/user/installations/{installation_id}/repositories"},
	} {
		wantValue(t, fams, "mq_github_requests_total", map[string]string{"method": c.method, "endpoint": c.endpoint, "status": "200"}, 1)
	}
}
