package service

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue/engine"
)

// effects collects what one step does beyond its database writes: the
// GitHub calls (io, made with no lock held) and the recording of their
// outcome (commit, under the queue's lock again). The intent of every
// GitHub write is recorded before the lock is released, so a crash at any
// point leaves it findable (a run still building, a merge intent, a
// recorded branch).
type effects struct {
	io     []func(context.Context)
	commit []func(context.Context) error
}

// later adds GitHub work to do once the lock is released.
func (fx *effects) later(fn func(context.Context)) { fx.io = append(fx.io, fn) }

// then adds the recording of an outcome, under the lock, after the io.
func (fx *effects) then(fn func(context.Context) error) { fx.commit = append(fx.commit, fn) }

// step plans and executes one action: under the queue's lock it loads a
// snapshot, asks the engine, and records the action's effect on the store
// (including the intent of any GitHub write); then, without the lock, it
// makes the GitHub calls; then, under the lock again, it records their
// outcome. No GitHub call is made while the lock is held, so API requests
// and webhooks on the queue never wait for GitHub.
func (s *Service) step(ctx context.Context, queueID int64, head *string, required *engine.RequiredChecks) (time.Time, bool, error) {
	var fx effects
	wake, done, err := func() (time.Time, bool, error) {
		defer s.lock(queueID)()
		snap, err := s.snapshot(ctx, queueID, *head, required)
		if err != nil {
			return time.Time{}, true, err
		}
		view, err := s.engineView(ctx, snap)
		if err != nil {
			return time.Time{}, true, err
		}
		action, wake := engine.Next(view, s.now())
		if action == nil {
			return wake, true, nil
		}
		zerolog.Ctx(ctx).Debug().Str("action", fmt.Sprintf("%T", action)).Interface("detail", action).Msg("engine decided")
		if err := s.prepare(ctx, &fx, snap, action, head); err != nil {
			return time.Time{}, true, fmt.Errorf("failed to execute %T: %w", action, err)
		}
		return time.Time{}, false, nil
	}()
	for _, io := range fx.io {
		io(ctx)
	}
	if len(fx.commit) > 0 {
		unlock := s.lock(queueID)
		for _, c := range fx.commit {
			if cerr := c(ctx); cerr != nil && err == nil {
				err = cerr
			}
		}
		unlock()
	}
	if err != nil {
		return time.Time{}, true, err
	}
	return wake, done, nil
}

// prepare records an action's effect on the store and queues its GitHub
// side in fx; the caller holds the queue's lock.
func (s *Service) prepare(ctx context.Context, fx *effects, snap *engine.Snapshot, a engine.Action, head *string) error {
	switch a := a.(type) {
	case engine.Transition:
		return s.transition(ctx, fx, snap.Queue, a)
	case engine.FinishRun:
		return s.finishRun(ctx, snap, a)
	case engine.CloseRun:
		return s.closeRun(ctx, fx, snap.Queue, a.RunID)
	case engine.StartRun:
		return s.startRun(ctx, fx, snap, a)
	case engine.Merge:
		return s.merge(ctx, fx, snap, a, head)
	case engine.ResolveMerge:
		s.resolveMerge(fx, snap, a, head)
		return nil
	case engine.ApplyMode:
		return s.applyMode(ctx, snap.Queue)
	case engine.RefreshPR:
		s.refreshPR(fx, snap, a.EntryID)
		return nil
	case engine.ProbeConflict:
		s.probeConflict(fx, snap, a)
		return nil
	case engine.CheckDirect:
		s.checkDirect(fx, snap, a)
		return nil
	case engine.RetryFailedCheck:
		return s.retryFailedCheck(ctx, fx, snap, a)
	case engine.ChecksNotStarted:
		return s.checksNotStarted(fx, snap, a)
	case engine.IsolationResult:
		return s.isolationResult(ctx, fx, snap.Queue, a)
	default:
		return fmt.Errorf("unknown action %T", a)
	}
}
