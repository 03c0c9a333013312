package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/app/dashboard"
	"github.com/mergequeue/mq/app/notify"
	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/handlers"
	"github.com/mergequeue/mq/handlers/api"
	"github.com/mergequeue/mq/handlers/bodydeadline"
	"github.com/mergequeue/mq/handlers/inbox"
	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
	"github.com/mergequeue/mq/queue/service"
	"github.com/mergequeue/mq/queue/sim"
)

// Options adjust an App beyond its configuration (tests, the sandbox).
type Options struct {
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger replaces the logger built from the configuration.
	Logger *zerolog.Logger
	// GitHubOptions are passed to the GitHub client.
	GitHubOptions []githubx.Option
	// BodyDeadline is the minimum-rate read deadline of every request body
	// (zero fields: bodydeadline's defaults, 10 s of grace then 64 KiB/s).
	BodyDeadline bodydeadline.Policy
	// Version is the build's version, shown by mq_build_info.
	Version string
}

// App is the whole service: store, GitHub client, queue service, workers,
// webhook inbox and the HTTP routes.
type App struct {
	cfg       *Config
	log       zerolog.Logger
	store     Database
	gh        *githubx.Client
	svc       *service.Service
	reads     *readside.Reads
	workers   *Workers
	processor *inbox.Processor
	metrics   *metrics
	handler   http.Handler
	bodies    bodydeadline.Policy
	botLogin  string
	inboxDone chan struct{}
	notifier  *notify.Notifier
	dash      *dashboard.Dashboard
	now       func() time.Time
	bg        sync.WaitGroup // background loops started by Start
	// replica names this process among those sharing the database: the
	// holder of its queues' leases and of its notification targets.
	replica string
	wakes   *wakeBroadcast
}

// New validates the configuration, opens the store, proves the GitHub App
// credentials work, creates the bootstrap queues and builds the routes. It
// starts nothing: call Start.
func New(ctx context.Context, cfg *Config, opts Options) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid configuration: %w", err)
	}
	log := cfg.Logger()
	if opts.Logger != nil {
		log = *opts.Logger
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	ctx = log.WithContext(ctx)
	m := newMetrics()
	gh, err := githubx.New(cfg.GitHubClientConfig(), append([]githubx.Option{githubx.WithObserver(m.github), githubx.WithBudget(cfg.GitHub.Budget.Budget()),
		githubx.WithMiddleware(leaseWriteGuard(opts.Now))},
		append(cfg.gitHubBuildOptions(opts.Now), opts.GitHubOptions...)...)...)
	if err != nil {
		return nil, fmt.Errorf("failed to create the GitHub client: %w", err)
	}
	store, err := OpenDatabase(ctx, cfg.Database)
	if err != nil {
		return nil, err
	}
	slug, err := appSlug(ctx, gh, store)
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	a := &App{cfg: cfg, log: log, store: store, gh: gh, botLogin: cfg.BotLoginFor(slug), metrics: m, now: opts.Now,
		bodies: opts.BodyDeadline}
	a.workers = NewWorkers(nil, cfg.Engine.ReconcileInterval, opts.Now)
	a.wakes = newWakeBroadcast()
	title, err := service.ParseTestPRTitle(cfg.TestPRs.TitleTemplate)
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	a.svc = service.NewService(store, gh, service.Options{
		Now: opts.Now, Wake: a.wakeQueue, ReconcileEvery: cfg.Engine.ReconcileInterval,
		PublicURL: cfg.Server.PublicURL, WebURL: gh.Config().WebURL, TestPRTitle: title,
		OnTreeMismatch: a.metrics.treeMismatch, OnChecksNotStarted: a.metrics.checksNotStarted,
		Tune: service.TuneOptions{Evaluator: sim.TuneEvaluator{}, OnChoice: a.metrics.autoTune.choice},
	})
	a.reads = readside.New(store, readside.Options{Now: opts.Now, WriteBudget: gh})
	a.workers.svc = a.svc
	a.replica = ReplicaName()
	a.workers.UseLeases(store, a.replica, LeaseTTL, a.svc.TakeOver)
	a.workers.SpreadOver(a.wakeActiveQueues)
	a.svc.Reconciler().SetObserver(m.reconciler)
	if err := a.bootstrapQueues(ctx); err != nil {
		_ = store.Close()
		return nil, err
	}
	if a.dash, err = newDashboard(cfg, store, a.reads, gh, opts.Now); err != nil {
		_ = store.Close()
		return nil, err
	}
	hcfg := handlers.Config{Host: cfg.GitHub.Host, BotLogin: a.botLogin, CommandPrefix: cfg.Commands.Prefix}
	a.processor = inbox.NewProcessor(store, handlers.New(hcfg, a.svc, a.reads, gh), log,
		inbox.WithTransient(func(err error) bool { return errors.Is(err, queue.ErrTransient) }, 0), inbox.WithObserver(m.inbox))
	receiver, err := inbox.NewReceiver(cfg.GitHub.App.WebhookSecret, store, a.processor.Wake,
		inbox.WithReceiverLogger(log), inbox.WithReceiverObserver(m.inbox))
	if err != nil {
		_ = store.Close()
		return nil, fmt.Errorf("failed to create the webhook receiver: %w", err)
	}
	m.inbox.watchReceiver(receiver)
	var targets []notify.Target
	for _, n := range cfg.Notifications {
		targets = append(targets, notify.Target{URL: n.URL, Secret: n.Secret, Kind: notify.Kind(n.Kind)})
	}
	a.notifier = notify.New(notifyStore{store}, notify.Options{Targets: targets, DetailsURL: strings.TrimRight(cfg.Server.PublicURL, "/") + "/",
		Observer: m.outbox, Holder: a.replica})
	m.attach(a, store, opts.Version)
	restAPI := api.New(a.svc, a.reads, store, api.Options{Host: cfg.GitHub.Host, WebURL: cfg.GitHub.WebURL, Now: opts.Now, Logger: log})
	a.handler = a.routes(receiver, restAPI)
	log.Info().Str("app", slug).Str("bot", a.botLogin).Str("database", cfg.Database.Describe()).Msg("merge queue ready")
	return a, nil
}

// bootstrapQueues creates the configured queues that do not exist yet.
func (a *App) bootstrapQueues(ctx context.Context) error {
	for i, b := range a.cfg.Queues {
		settings, err := b.Settings()
		if err != nil {
			return fmt.Errorf("queues[%d]: %w", i, err)
		}
		_, err = a.svc.CreateQueue(ctx, b.Key(a.cfg.GitHub.Host), settings)
		if err != nil && !errors.Is(err, queue.ErrExists) {
			return fmt.Errorf("failed to create bootstrap queue %s: %w", b.Repo, err)
		}
	}
	return nil
}

// Service is the queue service (for the sandbox and tests).
func (a *App) Service() *service.Service { return a.svc }

// Reads is the queue's read side (for the sandbox and tests).
func (a *App) Reads() *readside.Reads { return a.reads }

// Store is the database (for the CLI and tests).
func (a *App) Store() Database { return a.store }

// Handler serves every route.
func (a *App) Handler() http.Handler { return a.handler }

// Start runs the queue workers and the webhook inbox until ctx ends, and
// wakes every queue with work (an active entry or an open run) so that
// work left by a previous process resumes; an idle queue is synced when
// something wakes it.
func (a *App) Start(ctx context.Context) error {
	ctx = a.log.WithContext(ctx)
	a.workers.Start(ctx)
	queues, err := a.store.ListActiveQueues(ctx)
	if err != nil {
		return fmt.Errorf("failed to list queues: %w", err)
	}
	for _, q := range queues {
		a.workers.Wake(q.ID)
	}
	a.notifier.Start(ctx)
	a.bg.Add(2)
	go func() {
		defer a.bg.Done()
		a.wakes.run(ctx, a.store)
	}()
	go func() {
		defer a.bg.Done()
		a.listenWakes(ctx)
	}()
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		a.runAsRole(ctx, a.store, reconcilerRole, LeaseTTL, a.svc.Reconciler().Run)
	}()
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		a.retain(ctx)
	}()
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		a.runStallWatch(ctx, a.store, &activeStallReads{store: a.store, reads: a.reads}, a.store, a.metrics.stalls, a.cfg.Engine.ReconcileInterval)
	}()
	a.inboxDone = make(chan struct{})
	go func() {
		defer close(a.inboxDone)
		if err := a.processor.Run(ctx); err != nil {
			a.log.Error().Err(err).Msg("webhook inbox stopped")
		}
	}()
	return nil
}

// Connection timeouts of the HTTP server. Request bodies are bounded by the
// minimum-rate deadline of Options.BodyDeadline instead of a ReadTimeout, so
// that a large webhook on a slow link is not cut.
const (
	// ReadHeaderTimeout bounds the wait for a request's headers.
	ReadHeaderTimeout = 10 * time.Second
	// IdleTimeout closes a keep-alive connection unused for this long.
	IdleTimeout = 2 * time.Minute
)

// Serve serves HTTP on ln until ctx ends, then shuts down gracefully.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: a.handler, ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleTimeout,
		BaseContext: func(net.Listener) context.Context { return a.log.WithContext(context.Background()) }}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("http server stopped: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("failed to shut down the http server: %w", err)
	}
	return nil
}

// inboxDrain bounds Close's last pass over the inbox.
const inboxDrain = 10 * time.Second

// tuneDrain bounds Close's wait for an autoTune choice in progress: it
// stops after the estimate it is making and applies nothing.
const tuneDrain = 10 * time.Second

// Close waits for the workers (after the Start context ended), processes
// the webhooks stored since the inbox stopped (acknowledged while Serve
// shut down: with replicas, no other process may be left to take them),
// and closes the store. An autoTune choice in progress is stopped and
// waited for (tuneDrain) before the store closes.
func (a *App) Close() error {
	a.svc.StopTuning()
	a.workers.Wait()
	if !a.svc.WaitTuningFor(tuneDrain) {
		a.log.Warn().Dur("waited", tuneDrain).Msg("an autoTune choice was still running at shutdown; its writes, if any, fail with the store closed")
	}
	a.notifier.Wait()
	a.bg.Wait()
	if a.inboxDone != nil {
		<-a.inboxDone
		ctx, cancel := context.WithTimeout(a.log.WithContext(context.Background()), inboxDrain)
		if _, err := a.processor.ProcessPending(ctx); err != nil {
			a.log.Warn().Err(err).Msg("failed to process the webhooks stored while stopping; the next start does")
		}
		cancel()
	}
	return a.store.Close()
}

// appSlugKey stores the App's slug, learned at the last start that reached
// GitHub.
const appSlugKey = "app_slug"

// appSlug proves the App's credentials by reading the App (GET /app) and
// remembers its slug. GitHub refusing them stops the start-up; GitHub
// failing as a whole (5xx, timeouts, rate limits) does not when a previous
// start learned the slug: a restart during an outage comes back up,
// acknowledges webhooks and catches up once GitHub does.
func appSlug(ctx context.Context, gh *githubx.Client, store Database) (string, error) {
	slug, err := gh.AppSlug(ctx)
	if err == nil {
		if err := store.SetAppState(ctx, appSlugKey, slug); err != nil {
			return "", err
		}
		return slug, nil
	}
	authErr := fmt.Errorf("failed to authenticate as the GitHub App (check app id and private key): %w", err)
	if !errors.Is(err, queue.ErrTransient) {
		return "", authErr
	}
	known, ok, serr := store.AppState(ctx, appSlugKey)
	if serr != nil || !ok {
		return "", errors.Join(authErr, serr)
	}
	zerolog.Ctx(ctx).Warn().Err(err).Str("app", known).Msg("GitHub is unavailable; starting with the App slug learned before")
	return known, nil
}
