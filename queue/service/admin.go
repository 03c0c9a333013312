package service

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

// CreateQueueFrom creates a queue from the default settings changed by u,
// in u's state (running when nil), storing the defaults fixed at creation
// (queue.Settings.WithCreationDefaults: bisectionConcurrency is the
// concurrency given). ErrExists if the queue exists; an *InputError if the
// key breaks the naming rules (QueueKey.Validate) or u is invalid.
func (s *Service) CreateQueueFrom(ctx context.Context, key queue.QueueKey, u queue.QueueUpdate) (*queue.Queue, error) {
	if err := key.Validate(); err != nil {
		return nil, &queue.InputError{Msg: err.Error()}
	}
	settings, err := u.ApplySettings(queue.DefaultSettings())
	if err != nil {
		return nil, err
	}
	settings = settings.WithCreationDefaults()
	state := queue.QueueRunning
	if u.State != nil {
		if err := queue.CheckStateWrite(queue.QueueRunning, *u.State); err != nil {
			return nil, err
		}
		state = *u.State
	}
	now := s.now()
	q := &queue.Queue{Key: key, State: state, Settings: settings, CreatedAt: now, UpdatedAt: now, NextSeq: 1}
	if err := s.store.CreateQueue(ctx, q); err != nil {
		return nil, fmt.Errorf("failed to create queue %s: %w", key, err)
	}
	s.opts.Wake(q.ID)
	return q, nil
}

// UpdateQueue applies a partial update under the queue's lock and returns
// the saved queue (ErrNotFound if it does not exist; *InputError if the
// update is invalid, in which case nothing changes).
//
// A queue stored before a default was fixed at creation has it stored now
// (queue.Settings.WithCreationDefaults), so that its bisectionConcurrency
// keeps the value it showed when concurrency changes.
//
// Mode: a new mode applies at once when no run is building or in
// progress; otherwise the queue enters switching_modes (PendingMode set,
// the current state kept in ResumeState) and the engine applies the mode
// once those runs are done. Writing the queue's current (non-pending) mode
// while switching cancels the switch. A state written while switching
// becomes the state resumed afterwards.
func (s *Service) UpdateQueue(ctx context.Context, key queue.QueueKey, u queue.QueueUpdate) (*queue.Queue, error) {
	found, err := s.store.GetQueue(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("failed to load queue %s: %w", key, err)
	}
	unlock := s.lock(found.ID)
	defer unlock()
	q, err := s.store.GetQueueByID(ctx, found.ID)
	if err != nil {
		return nil, fmt.Errorf("failed to reload queue %s: %w", key, err)
	}
	if u.State != nil {
		if err := queue.CheckStateWrite(q.State, *u.State); err != nil {
			return nil, err
		}
	}
	ciPaused := q.PausedForChecksNotStarting()
	before := q.Settings
	settings, err := u.ApplySettings(q.Settings.WithCreationDefaults())
	if err != nil {
		return nil, err
	}
	// The mode, checked and canonical, is decided below.
	mode := settings.Mode
	settings.Mode = q.Settings.Mode
	q.Settings = settings
	if u.Mode != nil && mode != q.EffectiveMode() {
		if err := s.changeMode(ctx, q, mode); err != nil {
			return nil, err
		}
	}
	// switching_modes passed CheckStateWrite only as an echo of the state the
	// queue was in: it is no change, even if the mode write above ended the
	// switch.
	if u.State != nil && *u.State != queue.QueueSwitchingModes && *u.State != q.State {
		if q.State == queue.QueueSwitchingModes {
			q.ResumeState = *u.State
		} else {
			q.State = *u.State
			q.PausedReason = ""
		}
	}
	q.UpdatedAt = s.now()
	retune := false
	err = s.store.WithTx(ctx, func(tx queue.Store) error {
		if err := tx.UpdateQueue(ctx, q); err != nil {
			return err
		}
		var serr error
		if retune, serr = s.settleTuning(ctx, tx, before, q); serr != nil {
			return fmt.Errorf("failed to settle autoTune's tuning: %w", serr)
		}
		if !ciPaused || q.State == queue.QueuePaused {
			return nil
		}
		// Set running (or drained) again: the CI outage alert clears.
		ev := queue.QueueAlertEvent(q.ID, queue.AlertChecksNotStarting, false,
			fmt.Sprintf("the queue is %s again; new runs start", q.State), s.now())
		return tx.AddEvent(ctx, &ev)
	})
	if err != nil {
		return nil, fmt.Errorf("failed to save queue %s: %w", key, err)
	}
	if retune {
		s.forgetTuner(q.ID)
	}
	zerolog.Ctx(ctx).Info().Str("queue", key.String()).Str("state", string(q.State)).
		Str("mode", string(q.EffectiveMode())).Msg("queue updated")
	s.opts.Wake(q.ID)
	return q, nil
}

// changeMode moves q toward mode m (which differs from its effective mode).
func (s *Service) changeMode(ctx context.Context, q *queue.Queue, m queue.Mode) error {
	if q.State == queue.QueueSwitchingModes && m == q.Settings.Mode {
		// Back to the mode in force: the switch is cancelled.
		q.PendingMode = ""
		q.State = q.ResumeState
		if q.State == "" || q.State == queue.QueueSwitchingModes {
			q.State = queue.QueueRunning
		}
		q.ResumeState = ""
		return nil
	}
	busy, err := s.runsInProgress(ctx, q.ID)
	if err != nil {
		return err
	}
	if !busy {
		q.Settings.Mode = m
		q.PendingMode = ""
		if q.State == queue.QueueSwitchingModes {
			q.State = q.ResumeState
			if q.State == "" {
				q.State = queue.QueueRunning
			}
			q.ResumeState = ""
		}
		return nil
	}
	if q.State != queue.QueueSwitchingModes {
		q.ResumeState = q.State
		q.State = queue.QueueSwitchingModes
	}
	q.PendingMode = m
	return nil
}

// runsInProgress reports whether any open run of the queue is building or
// testing.
func (s *Service) runsInProgress(ctx context.Context, queueID int64) (bool, error) {
	runs, err := s.store.ListOpenRuns(ctx, queueID)
	if err != nil {
		return false, fmt.Errorf("failed to list runs: %w", err)
	}
	for _, r := range runs {
		if r.Status == queue.RunBuilding || r.Status == queue.RunInProgress {
			return true, nil
		}
	}
	return false, nil
}

// DeleteQueue deletes a queue that has no active entries (not_ready ones
// included): its entries, runs and history go with it, and its branches
// (its open runs', its lane, any recorded) are deleted on GitHub best
// effort. Deleting an absent queue
// is not an error; a queue with active entries is an *InputError naming
// them.
func (s *Service) DeleteQueue(ctx context.Context, key queue.QueueKey) error {
	found, err := s.store.GetQueue(ctx, key)
	if errors.Is(err, queue.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to load queue %s: %w", key, err)
	}
	var branches []string
	err = func() error {
		defer s.lock(found.ID)()
		active, err := s.store.ListActiveEntries(ctx, found.ID)
		if err != nil {
			return fmt.Errorf("failed to list entries of %s: %w", key, err)
		}
		if len(active) > 0 {
			nums := make([]int, len(active))
			for i, e := range active {
				nums[i] = e.PRNumber
			}
			return queue.Inputf("queue for branch %q of %s still has %d active pull request(s) (%s): cancel them or let them merge first",
				key.Branch, key.Repo.FullName(), len(active), queue.PRList(nums))
		}
		runs, err := s.store.ListOpenRuns(ctx, found.ID)
		if err != nil {
			return fmt.Errorf("failed to list runs of %s: %w", key, err)
		}
		for _, r := range runs {
			if r.Branch != "" {
				branches = append(branches, r.Branch)
			}
		}
		// Its recorded branches (its lane, ended runs') go with it: their
		// records do.
		refs, err := s.store.ListRefs(ctx, key.Repo)
		if err != nil {
			return fmt.Errorf("failed to list the branches of %s: %w", key, err)
		}
		for _, ref := range refs {
			if ref.QueueID == found.ID && !slices.Contains(branches, ref.Name) {
				branches = append(branches, ref.Name)
			}
		}
		if err := s.store.DeleteQueue(ctx, found.ID); err != nil {
			return fmt.Errorf("failed to delete queue %s: %w", key, err)
		}
		return nil
	}()
	if err != nil {
		return err
	}
	// Those of its branches that cannot be deleted now lost their records
	// with it: the repository's next sweep deletes them if this replica
	// runs the reconciler, else the patrol's.
	s.rec.oweSweep(key.Repo, found.Settings.EffectiveTestBranchPrefix())
	for _, b := range branches {
		if err := s.gh.DeleteBranch(ctx, key.Repo, b); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Str("branch", b).Msg("failed to delete test branch of deleted queue")
		}
	}
	zerolog.Ctx(ctx).Info().Str("queue", key.String()).Msg("queue deleted")
	return nil
}
