package app

import (
	"context"
	"sync"
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
// claim lasts ttl (LeaseTTL in the app) and is renewed every third of it;
// when it cannot be renewed (another replica holds it, or the database did
// not answer before it may pass on) run's context ends at once, and the
// replica tries to claim it again every third of ttl. run's context
// carries the role's hold: its GitHub writes need it (leaseWriteGuard).
func (a *App) runAsRole(ctx context.Context, roles roleClaimer, role string, ttl time.Duration, run func(ctx context.Context)) {
	log := zerolog.Ctx(ctx).With().Str("role", role).Logger()
	every := ttl / 3
	for {
		asked := a.now()
		ok, err := roles.ClaimRole(ctx, role, a.replica, asked, ttl)
		if err != nil && ctx.Err() == nil {
			log.Warn().Err(err).Msg("failed to claim the role")
		}
		if ok {
			log.Info().Msg("this replica now holds the role")
			a.holdRole(ctx, roles, role, asked, ttl, run, log)
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
func (a *App) holdRole(ctx context.Context, roles roleClaimer, role string, asked time.Time, ttl time.Duration, run func(ctx context.Context), log zerolog.Logger) {
	hold := &roleHold{until: asked.Add(ttl)}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(withHold(rctx, hold))
	}()
	defer func() {
		cancel()
		<-done
	}()
	ticker := time.NewTicker(ttl / 3)
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
		ok, err := roles.ClaimRole(ctx, role, a.replica, asked, ttl)
		switch {
		case ok:
			hold.renewed(asked.Add(ttl))
		case err != nil && a.now().Before(hold.HeldUntil()):
			log.Warn().Err(err).Msg("failed to renew the role; retrying while it holds")
		default:
			hold.renewed(time.Time{})
			log.Warn().Err(err).Msg("the role is lost; this replica stops its work")
			return
		}
	}
}

// roleHold is a role as held: the GitHub writes of its work need it
// (withHold).
type roleHold struct {
	mu    sync.Mutex
	until time.Time // zero once lost
}

// HeldUntil is when the role may pass on at the earliest (its claim's
// request time plus the TTL); zero once lost.
func (h *roleHold) HeldUntil() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.until
}

// renewed records the claim's new end (zero: lost).
func (h *roleHold) renewed(until time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.until.IsZero() {
		h.until = until
	}
}
