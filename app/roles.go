package app

import (
	"context"
	"time"

	"github.com/rs/zerolog"
)

// reconcilerRole names the surface reconciler's role: it writes the
// surfaces (check runs, sticky comments, labels), notices and branch
// clean-up of every queue, so one replica at a time runs it.
const reconcilerRole = "reconciler"

// roleClaimer is how replicas share roles (the database).
type roleClaimer interface {
	// ClaimRole makes holder the one process doing role until now+hold
	// unless another holder's claim is live (ok false).
	ClaimRole(ctx context.Context, role, holder string, now time.Time, hold time.Duration) (bool, error)
}

// runAsRole runs run while this replica holds role, until ctx ends. The
// claim lasts LeaseTTL and is renewed every third of it; when it cannot be
// renewed (another replica holds it, or the database did not answer before
// it may pass on) run's context ends at once, and the replica tries to
// claim it again every third of LeaseTTL.
func (a *App) runAsRole(ctx context.Context, roles roleClaimer, role string, run func(ctx context.Context)) {
	log := zerolog.Ctx(ctx).With().Str("role", role).Logger()
	every := LeaseTTL / 3
	for {
		asked := a.now()
		ok, err := roles.ClaimRole(ctx, role, a.replica, asked, LeaseTTL)
		if err != nil && ctx.Err() == nil {
			log.Warn().Err(err).Msg("failed to claim the role")
		}
		if ok {
			log.Info().Msg("this replica now holds the role")
			a.holdRole(ctx, roles, role, asked, run, log)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

// holdRole runs run under the role claimed at asked, renewing it, until
// ctx ends or the role is lost.
func (a *App) holdRole(ctx context.Context, roles roleClaimer, role string, asked time.Time, run func(ctx context.Context), log zerolog.Logger) {
	until := asked.Add(LeaseTTL)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(rctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	ticker := time.NewTicker(LeaseTTL / 3)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case <-ticker.C:
		}
		asked := a.now()
		ok, err := roles.ClaimRole(ctx, role, a.replica, asked, LeaseTTL)
		switch {
		case ok:
			until = asked.Add(LeaseTTL)
		case err != nil && a.now().Before(until):
			log.Warn().Err(err).Msg("failed to renew the role; retrying while it holds")
		default:
			log.Warn().Err(err).Msg("the role is lost; this replica stops its work")
			return
		}
	}
}
