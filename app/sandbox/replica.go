package sandbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/githubx"
)

// Replica is another app on the environment's database and fake GitHub:
// a second replica (database.replicas on PostgreSQL). It serves no HTTP
// (the fake GitHub's webhooks go to the first app); it runs its workers,
// reconciler and inbox as a replica behind a load balancer would.
type Replica struct {
	app    *app.App
	cancel context.CancelFunc
}

// StartReplica starts a replica; Stop it before Close.
func (e *Env) StartReplica(ctx context.Context) (*Replica, error) {
	if !e.cfg.Database.Replicas {
		return nil, fmt.Errorf("failed to start a replica: the environment's database is not shared (database.replicas)")
	}
	cfg := *e.cfg
	logger := zerolog.Nop()
	if e.opts.Logger != nil {
		logger = *e.opts.Logger
	}
	policy := githubx.DefaultRetryPolicy()
	policy.BaseDelay, policy.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	a, err := app.New(ctx, &cfg, app.Options{Logger: &logger, GitHubOptions: append([]githubx.Option{githubx.WithRetryPolicy(policy)}, e.opts.GitHubOptions...),
		Now: e.opts.Now})
	if err != nil {
		return nil, fmt.Errorf("failed to start a replica: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if err := a.Start(runCtx); err != nil {
		cancel()
		return nil, errors.Join(fmt.Errorf("failed to start a replica: %w", err), a.Close())
	}
	return &Replica{app: a, cancel: cancel}, nil
}

// App is the replica's app.
func (r *Replica) App() *app.App { return r.app }

// Stop stops the replica and closes its database handle.
func (r *Replica) Stop() error {
	r.cancel()
	return r.app.Close()
}
