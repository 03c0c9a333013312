package fakegithub

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-github/v66/github"
)

// Server is a running fake GitHub. Create it with New and stop it with
// Close.
type Server struct {
	opts           Options
	ts             *httptest.Server
	dir            string
	ownDir         bool
	installationID int64
	routes         []*route

	idSeq    atomic.Int64
	clockSeq atomic.Int64
	clock0   int64

	mu           sync.Mutex
	app          appState // the App installed on every repository
	repos        map[string]*repo
	tokens       map[string]time.Time
	userTokens   map[string]string // personal access token → login
	manifests    map[string]*pendingManifest
	oauth        oauthState // the App's OAuth client (oauth.go)
	calls        map[string]int
	faults       []*activeFault
	users        map[string]int64
	commentRepo  map[int64]*repo
	checkRunRepo map[int64]*repo
	limits       *limiter // nil: no secondary limits enforced

	idle      *idleTracker
	hooks     *webhookQueue
	ci        *ciRunner
	stop      context.CancelFunc
	closed    chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// New starts a fake GitHub on loopback (or opts.Addr / opts.Listener).
func New(opts Options) (*Server, error) {
	s := &Server{
		opts:           opts,
		app:            defaultApp(opts.AppID, opts.AppPublicKey),
		installationID: opts.InstallationID,
		repos:          map[string]*repo{},
		tokens:         map[string]time.Time{},
		userTokens:     map[string]string{},
		manifests:      map[string]*pendingManifest{},
		calls:          map[string]int{},
		users:          map[string]int64{},
		commentRepo:    map[int64]*repo{},
		checkRunRepo:   map[int64]*repo{},
		clock0:         time.Now().Unix(),
		closed:         make(chan struct{}),
	}
	s.idSeq.Store(1000)
	if opts.Limits != nil {
		s.limits = newLimiter(*opts.Limits)
	}
	if s.installationID == 0 {
		s.installationID = 1
	}
	if s.app.pubKey == nil {
		pemBytes, key, err := GenerateAppKey()
		if err != nil {
			return nil, err
		}
		s.app.pubKey, s.app.privPEM = &key.PublicKey, pemBytes
	}
	if opts.Dir == "" {
		dir, err := os.MkdirTemp("", "fakegithub-")
		if err != nil {
			return nil, fmt.Errorf("failed to create repositories dir: %w", err)
		}
		s.dir, s.ownDir = dir, true
	} else {
		if err := os.MkdirAll(opts.Dir, 0o750); err != nil {
			return nil, fmt.Errorf("failed to create repositories dir: %w", err)
		}
		s.dir = opts.Dir
	}
	s.routes = s.buildRoutes()

	ln := opts.Listener
	if ln == nil {
		addr := opts.Addr
		if addr == "" {
			addr = "127.0.0.1:0"
		}
		var err error
		if ln, err = net.Listen("tcp", addr); err != nil {
			s.removeDir()
			return nil, fmt.Errorf("failed to listen on %s: %w", addr, err)
		}
	}
	s.ts = httptest.NewUnstartedServer(s)
	s.ts.Listener.Close()
	s.ts.Listener = ln
	s.ts.Start()

	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.idle = newIdleTracker()
	s.hooks = newWebhookQueue(s, opts.WebhookURL, opts.WebhookSecret)
	s.ci = newCIRunner(s, opts.CI)
	s.wg.Add(2)
	go func() { defer s.wg.Done(); s.hooks.run(ctx) }()
	go func() { defer s.wg.Done(); s.ci.run(ctx) }()
	return s, nil
}

// URL is the server's base URL without a trailing slash (e.g.
// "http://127.0.0.1:41234"). The API is served at URL()+"/" and at
// URL()+"/api/v3/".
func (s *Server) URL() string { return s.ts.URL }

// AppID is the id of the App installed now: JWTs must be issued for it.
// A manifest conversion installs a new App (see CompleteManifest's route).
func (s *Server) AppID() int64 { return s.currentApp().id }

// InstallationID is the id of the one installation covering every repo.
func (s *Server) InstallationID() int64 { return s.installationID }

// AppPrivateKeyPEM is the installed App's private key when the fake
// generated it (New, or a manifest conversion); nil if
// Options.AppPublicKey was given and no manifest was converted since.
func (s *Server) AppPrivateKeyPEM() []byte { return s.currentApp().privPEM }

// Close stops the HTTP server, the webhook sender and the CI, and removes
// the repositories directory if New created it. Queued webhooks are
// dropped.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closed) })
	s.stop()
	s.ts.CloseClientConnections()
	s.ts.Close()
	s.wg.Wait()
	s.removeDir()
}

func (s *Server) removeDir() {
	if s.ownDir {
		_ = os.RemoveAll(s.dir)
	}
}

// newID returns a fresh id, unique across every kind of object.
func (s *Server) newID() int64 { return s.idSeq.Add(1) }

// tick returns the next commit timestamp: strictly increasing, starting at
// the server's start time, so commits are ordered and deterministic-ish.
func (s *Server) tick() time.Time {
	return time.Unix(s.clock0+s.clockSeq.Add(1), 0).UTC()
}

// sig is the signature of a commit written by login now.
func (s *Server) sig(login string) signature {
	return signature{Name: login, Email: login + "@users.noreply.github.com", When: s.tick()}
}

// githubSig is the committer of commits GitHub writes (merges).
func (s *Server) githubSig() signature {
	return signature{Name: "GitHub", Email: "noreply@github.com", When: s.tick()}
}

// user renders a user; ids are stable per login, "[bot]" logins are Bots.
func (s *Server) user(login string) *github.User {
	s.mu.Lock()
	key := strings.ToLower(login)
	id, ok := s.users[key]
	if !ok {
		id = s.newID()
		s.users[key] = id
	}
	s.mu.Unlock()
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return &github.User{
		Login:   github.String(login),
		ID:      github.Int64(id),
		NodeID:  github.String(fmt.Sprintf("U_%d", id)),
		Type:    github.String(typ),
		HTMLURL: github.String(s.URL() + "/" + login),
		URL:     github.String(s.URL() + "/users/" + login),
	}
}

// repo looks a repository up by owner and name (case-insensitive).
func (s *Server) repo(owner, name string) (*repo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.repos[repoKey(owner, name)]
	if !ok {
		return nil, &apiError{status: http.StatusNotFound, msg: fmt.Sprintf("repository %s/%s not found", owner, name)}
	}
	return r, nil
}

// repoByFullName looks a repository up by "owner/name".
func (s *Server) repoByFullName(full string) (*repo, error) {
	owner, name, _ := strings.Cut(full, "/")
	return s.repo(owner, name)
}

// Calls returns how many requests matched a route, keyed "METHOD /pattern"
// exactly as Routes() lists them (e.g. "PUT
// /repos/{owner}/{repo}/pulls/{number}/merge", "PATCH
// /repos/{owner}/{repo}/git/refs/{ref}"). Requests under /api/v3 count
// under the same keys; unmatched ones under "METHOD NOT_FOUND".
func (s *Server) Calls(pattern string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[pattern]
}

// CallCounts returns a copy of every route's call count.
func (s *Server) CallCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.calls))
	for k, v := range s.calls {
		out[k] = v
	}
	return out
}

// Routes lists every route pattern the fake serves.
func (s *Server) Routes() []string {
	out := make([]string, 0, len(s.routes))
	for _, rt := range s.routes {
		out = append(out, rt.key)
	}
	return out
}

func (s *Server) countCall(key string) {
	s.mu.Lock()
	s.calls[key]++
	s.mu.Unlock()
}

// ServeHTTP routes a request: count, authenticate, enforce the secondary
// limits, inject faults, handle.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.serveGit(w, r) { // git's smart HTTP protocol (githttp.go)
		return
	}
	path := r.URL.Path
	if path == "/api/v3" || strings.HasPrefix(path, "/api/v3/") {
		path = strings.TrimPrefix(path, "/api/v3")
	}
	rt, params := s.match(r.Method, path)
	if rt == nil {
		s.countCall(r.Method + " NOT_FOUND")
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	s.countCall(rt.key)
	actor, ok := s.authorize(w, r, rt.auth)
	if !ok {
		return
	}
	if l := s.limiterFor(r); l != nil && rt.auth == authToken {
		refused, done := l.admit(r.Method, rt.key)
		if refused != nil {
			writeRefusal(w, refused) // nothing applied
			return
		}
		defer done()
	}
	fault := s.takeFault(r.Method, path)
	if fault != nil && !fault.ApplyThenFail {
		s.writeFault(w, fault, rt)
		return
	}
	c := &reqCtx{s: s, r: r, params: params, w: w, actor: actor}
	if fault != nil {
		rec := httptest.NewRecorder()
		c.w = rec
		defer s.writeFault(w, fault, rt)
	}
	if rt.repo {
		rp, err := s.repo(params["owner"], params["repo"])
		if err != nil {
			c.error(http.StatusNotFound, "Not Found")
			return
		}
		c.repo = rp
	}
	rt.handler(c)
}
