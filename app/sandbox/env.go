package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers/bodydeadline"
	"github.com/mergequeue/mq/queue"
)

// Options configure an Env.
type Options struct {
	// Dir holds the database and the git repositories ("" = a temporary
	// directory removed by Close).
	Dir string
	// Addr is where the app listens ("" = a random loopback port).
	Addr string
	// FakeAddr is where the fake GitHub listens ("" = a random loopback port).
	FakeAddr string
	// Logger for the app (default: no logs).
	Logger *zerolog.Logger
	// CI configures the simulated CI.
	CI fakegithub.CIOptions
	// ReconcileInterval for the engine (default 2s).
	ReconcileInterval time.Duration
	// Host is the GitHub host name queues use (default queue.DefaultHost).
	Host string
	// Notifications are the endpoints queue activity is sent to (SPEC §8).
	Notifications []app.NotificationTarget
	// BodyDeadline is the app's request body deadline (zero: the defaults).
	BodyDeadline bodydeadline.Policy
	// DashboardAccess is who may read the dashboard (default public: the
	// sandbox listens on loopback and holds only demo data, so a newcomer's
	// dashboard link works without signing in).
	DashboardAccess app.DashboardAccess
	// Limits, if set, are GitHub's secondary rate limits the fake GitHub
	// enforces (scaled as the caller wants).
	Limits *fakegithub.SecondaryLimits
	// Budget is the app's github.budget. nil: the configuration's
	// (GitHub's numbers) when Limits are set; else none to speak of, since
	// the fake then enforces no limit and waiting would only slow the
	// sandbox down.
	Budget *app.GitHubBudget
	// GitHubOptions are added to the app's GitHub client options.
	GitHubOptions []githubx.Option
	// Database is the app's database (nil: a SQLite file in Dir, the
	// sandbox's store).
	Database *app.DatabaseConfig
	// Now is the app's clock (nil: time.Now); tests move it forward to
	// reach a timeout.
	Now func() time.Time
	// TestBranches is the app's github.test_branches ("" = the default,
	// app.TestBranchesREST); with app.TestBranchesGit the clones live in
	// Dir/clones and the fake GitHub serves the pushes.
	TestBranches string
}

// unlimitedBudget is the budget of a sandbox whose fake enforces no limit.
var unlimitedBudget = app.GitHubBudget{ConcurrentRequests: 1 << 20, PointsPerMinute: 1 << 30, WritesPerMinute: 1 << 30,
	WritesPerHour: 1 << 30}

// Env is a running fake GitHub plus a running app.
type Env struct {
	Fake *fakegithub.Server
	// URL is the app's base URL (REST API at URL+"/v1/").
	URL string

	opts    Options
	ln      *keptListener // the app's socket, open from Start to Close
	dir     string
	ownDir  bool
	cfg     *app.Config
	app     *app.App
	cancel  context.CancelFunc
	serveCh chan error
}

// Start starts the fake GitHub and the app, wiring webhooks to the app.
func Start(ctx context.Context, opts Options) (*Env, error) {
	if opts.ReconcileInterval <= 0 {
		opts.ReconcileInterval = 2 * time.Second
	}
	if opts.Host == "" {
		opts.Host = queue.DefaultHost
	}
	e := &Env{opts: opts, dir: opts.Dir}
	if e.dir == "" {
		dir, err := os.MkdirTemp("", "mq-sandbox-")
		if err != nil {
			return nil, fmt.Errorf("failed to create sandbox dir: %w", err)
		}
		e.dir, e.ownDir = dir, true
	}
	secret, err := randomHex(16)
	if err != nil {
		return nil, err
	}
	fake, err := fakegithub.New(fakegithub.Options{Addr: opts.FakeAddr, Dir: filepath.Join(e.dir, "git"),
		WebhookSecret: secret, CI: opts.CI, Limits: opts.Limits})
	if err != nil {
		e.removeDir()
		return nil, fmt.Errorf("failed to start the fake GitHub: %w", err)
	}
	e.Fake = fake
	cfg, err := app.LoadConfig("", func(string) string { return "" })
	if err != nil {
		e.Close()
		return nil, err
	}
	cfg.GitHub.WebURL = fake.URL()
	cfg.GitHub.V3APIURL = fake.URL() + "/"
	cfg.GitHub.V4APIURL = fake.URL() + "/graphql"
	cfg.GitHub.Host = opts.Host
	cfg.GitHub.App.IntegrationID = fake.AppID()
	cfg.GitHub.App.PrivateKey = string(fake.AppPrivateKeyPEM())
	cfg.GitHub.App.WebhookSecret = secret
	cfg.Database.Path = filepath.Join(e.dir, "mq.db")
	if opts.Database != nil {
		cfg.Database = *opts.Database
	}
	cfg.Engine.ReconcileInterval = opts.ReconcileInterval
	if opts.TestBranches != "" {
		cfg.GitHub.TestBranches = opts.TestBranches
	}
	cfg.GitHub.Git.Dir = filepath.Join(e.dir, "clones") // Dir/git holds the fake's repositories
	switch {
	case opts.Budget != nil:
		cfg.GitHub.Budget = *opts.Budget
	case opts.Limits == nil:
		cfg.GitHub.Budget = unlimitedBudget
	}
	cfg.Notifications = opts.Notifications
	cfg.Dashboard.Access = app.DashboardPublic
	if opts.DashboardAccess != "" {
		cfg.Dashboard.Access = opts.DashboardAccess
	}
	e.cfg = cfg
	if err := e.startApp(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// startApp starts an app on the environment's database and fake GitHub.
func (e *Env) startApp(ctx context.Context) error {
	if e.ln == nil {
		addr := e.opts.Addr
		if addr == "" {
			addr = "127.0.0.1:0"
		}
		ln, err := listenKept(addr)
		if err != nil {
			return err
		}
		e.ln = ln
	} else if err := e.ln.reopen(); err != nil { // a restart keeps its address
		return err
	}
	ln := e.ln
	e.cfg.Server.PublicURL = "http://" + ln.Addr().String()
	logger := zerolog.Nop()
	if e.opts.Logger != nil {
		logger = *e.opts.Logger
	}
	// Tests and the sandbox run everything on loopback: retry fast.
	policy := githubx.DefaultRetryPolicy()
	policy.BaseDelay, policy.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	ghOpts := append([]githubx.Option{githubx.WithRetryPolicy(policy)}, e.opts.GitHubOptions...)
	a, err := app.New(ctx, e.cfg, app.Options{Logger: &logger, GitHubOptions: ghOpts, BodyDeadline: e.opts.BodyDeadline,
		Now: e.opts.Now})
	if err != nil {
		_ = ln.Close()
		return err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if err := a.Start(runCtx); err != nil {
		cancel()
		_ = ln.Close()
		return errors.Join(err, a.Close())
	}
	e.app, e.cancel, e.URL = a, cancel, "http://"+ln.Addr().String()
	e.serveCh = make(chan error, 1)
	go func() { e.serveCh <- a.Serve(runCtx, ln) }()
	e.Fake.SetWebhookURL(e.URL + app.WebhookPath)
	return nil
}

// App is the running app.
func (e *Env) App() *app.App { return e.app }

// WebhookSecret is the secret the fake GitHub signs webhooks with.
func (e *Env) WebhookSecret() string { return e.cfg.GitHub.App.WebhookSecret }

// DatabasePath is the app's SQLite file (with the default database).
func (e *Env) DatabasePath() string { return e.cfg.Database.Path }

// StopApp stops the app (the fake GitHub keeps running; webhooks sent
// meanwhile fail, as they would against a stopped server).
func (e *Env) StopApp() error {
	if e.app == nil {
		return nil
	}
	e.Fake.SetWebhookURL("http://127.0.0.1:1/unreachable")
	e.cancel()
	serveErr := <-e.serveCh
	err := errors.Join(serveErr, e.app.Close())
	e.app = nil
	return err
}

// RestartApp starts a new app process on the same database and address.
func (e *Env) RestartApp(ctx context.Context) error {
	if err := e.StopApp(); err != nil {
		return err
	}
	return e.startApp(ctx)
}

// Close stops everything and removes a temporary directory.
func (e *Env) Close() {
	if err := e.StopApp(); err != nil && e.opts.Logger != nil {
		e.opts.Logger.Warn().Err(err).Msg("failed to stop the app")
	}
	if e.ln != nil {
		_ = e.ln.release()
		e.ln = nil
	}
	if e.Fake != nil {
		e.Fake.Close()
	}
	e.removeDir()
}

func (e *Env) removeDir() {
	if e.ownDir {
		_ = os.RemoveAll(e.dir)
	}
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("failed to read random bytes: %w", err)
	}
	return hex.EncodeToString(b), nil
}
