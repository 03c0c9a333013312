package service

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/crashpoint"
	"github.com/mergequeue/mq/queue/engine"
)

// Landing a passed unit by fast-forward (Settings.FastForwardLanding): the
// target branch moves to the run's tested commit T in one non-forced ref
// update, when T is the unit's merge commits on top of the target head
// (the run was built on it, in the chain), instead of one PR merge per
// entry. GitHub marks each PR merged as its head becomes reachable from the
// branch. Any refusal falls back to the PR merges for the unit.

// ffLanding is what happened when the queue went to land a unit by
// fast-forward.
type ffLanding struct {
	readErr  error              // a read failed: nothing was attempted
	head     string             // the target head moved: nothing was attempted
	pr       *queue.PullRequest // a PR moved on: nothing was attempted
	refused  string             // why the fast-forward was not (or could not be) made: fall back
	unknown  error              // the update's outcome is unknown: read back later
	chain    []queue.ChainCommit
	landedAt string // the target head after the update (T)
	// mismatch and verifyErr as in mergeOutcome, for the unit's last entry.
	mismatch  string
	verifyErr error
}

// ffRefusals remembers the runs whose fast-forward was refused, so that the
// engine's next Merge of them uses the PR merge endpoint. Lost on restart:
// the fast-forward is then tried once more, which is harmless.
type ffRefusals struct {
	mu   sync.Mutex
	runs map[string]bool
}

func (f *ffRefusals) refused(runID string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runs[runID]
}

func (f *ffRefusals) refuse(runID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.runs == nil {
		f.runs = map[string]bool{}
	}
	f.runs[runID] = true
}

// landsByFastForward reports whether q lands its units by fast-forward
// and the GitHub port can.
func (s *Service) landsByFastForward(q *queue.Queue) (queue.FastForwarder, bool) {
	ff, ok := s.gh.(queue.FastForwarder)
	return ff, ok && q.Settings.FastForwardLanding && q.Settings.MergeMethod == queue.MergeCommit &&
		q.Settings.Mode != queue.ModeParallel
}

// fastForwardUnit lands the unit of m's run by fast-forward when it may
// (the setting, a run that passed in the chain, the first entry of its
// unit, no refusal before); it reports false when the caller merges the
// entry by the PR merge endpoint instead. The merge intent is recorded on
// every entry of the unit before the GitHub write.
func (s *Service) fastForwardUnit(ctx context.Context, fx *effects, snap *engine.Snapshot, m engine.Merge, head *string) (bool, error) {
	q := snap.Queue
	ff, ok := s.landsByFastForward(q)
	r := snap.Run(m.RunID)
	if !ok || r == nil || r.Status != queue.RunSucceeded || r.SHA == "" || r.Isolation || len(r.EntryIDs) == 0 ||
		r.EntryIDs[0] != m.EntryID || s.ffRefused.refused(r.ID) {
		return false, nil
	}
	unit := make([]*queue.Entry, len(r.EntryIDs))
	for i, id := range r.EntryIDs {
		e := snap.Entry(id)
		if e == nil || e.MergeIntent || e.State != queue.StateTestsPassed || e.PRSHA != r.PRSHAs[i] {
			return false, nil
		}
		unit[i] = e
	}
	err := s.store.WithTx(ctx, func(tx queue.Store) error {
		for _, e := range unit {
			e.MergeIntent, e.MergeBase = true, m.Before
			if err := tx.SaveEntry(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return true, fmt.Errorf("failed to record the merge intent of run %s: %w", r.ID, err)
	}
	var o ffLanding
	fx.later(func(ctx context.Context) { o = s.tryFastForward(ctx, ff, q, unit, r, m.Before) })
	fx.then(func(ctx context.Context) error { return s.settleFastForward(ctx, fx, q, unit, r, m.Before, o, head) })
	return true, nil
}

// tryFastForward reads fresh (the target head, T's chain, the PRs), moves
// the target branch to T and verifies the landing; it holds no lock.
func (s *Service) tryFastForward(ctx context.Context, ff queue.FastForwarder, q *queue.Queue, unit []*queue.Entry, r *queue.TestRun, before string) (o ffLanding) {
	repo, branch := q.Key.Repo, q.Key.Branch
	fresh, err := s.gh.BranchHead(ctx, repo, branch)
	if err != nil {
		o.readErr = fmt.Errorf("failed to read head of %s before landing: %w", branch, err)
		return o
	}
	if fresh != before {
		o.head = fresh
		return o
	}
	o.chain, err = ff.FirstParents(ctx, repo, r.SHA, len(unit))
	if err != nil {
		o.readErr = fmt.Errorf("failed to read the merge commits of %s: %w", r.SHA, err)
		return o
	}
	if why := unitChainMismatch(o.chain, unit, before); why != "" {
		o.refused = why
		return o
	}
	for _, e := range unit {
		pr, err := s.gh.GetPullRequest(ctx, repo, e.PRNumber)
		if err != nil {
			o.readErr = fmt.Errorf("failed to read #%d before landing: %w", e.PRNumber, err)
			return o
		}
		if pr.Merged || !pr.Open || pr.HeadSHA != e.PRSHA {
			o.pr = pr
			return o
		}
	}
	err = ff.FastForward(ctx, repo, branch, before, r.SHA)
	var rejected *queue.RejectedError
	switch {
	case errors.Is(err, queue.ErrNotFastForward):
		o.refused = "not a fast-forward: " + err.Error()
		return o
	case errors.As(err, &rejected):
		o.refused = "GitHub refused the update: " + rejected.Message
		return o
	case err != nil:
		// Unknown: read the branch back.
		now, rerr := s.gh.BranchHead(ctx, repo, branch)
		switch {
		case rerr == nil && now == before:
			o.refused = "the update did not apply: " + err.Error()
			return o
		case rerr != nil || now != r.SHA:
			o.unknown = err
			return o
		}
	}
	crashpoint.Hit(crashpoint.MergeApplied)
	o.landedAt = r.SHA
	// SPEC §5.10: what landed (the branch is at T) is what was tested.
	o.mismatch, o.verifyErr = s.verifyLanding(ctx, q, unit[len(unit)-1], r, o.chain[len(unit)-1].Parents[0], r.SHA)
	return o
}

// unitChainMismatch says why chain (T's first parents, T first) is not the
// unit's merge commits on top of before, in order ("" when it is).
func unitChainMismatch(chain []queue.ChainCommit, unit []*queue.Entry, before string) string {
	n := len(unit)
	if len(chain) != n {
		return fmt.Sprintf("the tested commit has %d first parents, not the unit's %d merge commits", len(chain), n)
	}
	for i, e := range unit {
		c := chain[n-1-i]
		if len(c.Parents) != 2 || c.Parents[1] != e.PRSHA {
			return fmt.Sprintf("commit %s is not the merge of #%d", queue.ShortSHA(c.SHA), e.PRNumber)
		}
	}
	if got := chain[n-1].Parents[0]; got != before {
		return fmt.Sprintf("the tested commit was built on %s, not on the target head %s", queue.ShortSHA(got), queue.ShortSHA(before))
	}
	return ""
}

// settleFastForward records a fast-forward's outcome; the caller holds the
// lock. Landed, each entry of the unit is recorded merged in order with
// its own merge commit of T's chain; refused, the intents are cleared and
// the run merges PR by PR.
func (s *Service) settleFastForward(ctx context.Context, fx *effects, q *queue.Queue, unit []*queue.Entry, r *queue.TestRun, before string, o ffLanding, head *string) error {
	q, err := s.store.GetQueueByID(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("failed to load queue: %w", err)
	}
	cur := make([]*queue.Entry, len(unit))
	for i, e := range unit {
		if cur[i], err = s.store.GetEntryByID(ctx, e.ID); err != nil {
			return fmt.Errorf("failed to load entry %s: %w", e.ID, err)
		}
	}
	clearIntents := func() error {
		return s.store.WithTx(ctx, func(tx queue.Store) error {
			for _, e := range cur {
				if e.MergeIntent {
					e.MergeIntent = false
					if err := tx.SaveEntry(ctx, e); err != nil {
						return fmt.Errorf("failed to clear the merge intent of #%d: %w", e.PRNumber, err)
					}
				}
			}
			return nil
		})
	}
	log := zerolog.Ctx(ctx)
	switch {
	case o.readErr != nil:
		return errors.Join(o.readErr, clearIntents())
	case o.head != "":
		*head = o.head
		return clearIntents()
	case o.pr != nil:
		if err := clearIntents(); err != nil {
			return err
		}
		for _, e := range cur {
			if e.PRNumber == o.pr.Number {
				return s.storeFacts(ctx, e.ID, o.pr.PRFacts, true)
			}
		}
		return nil
	case o.refused != "":
		log.Info().Str("run", r.ID).Ints("prs", r.PRNumbers).Str("why", o.refused).Msg("not landing by fast-forward; merging the pull requests one by one")
		s.ffRefused.refuse(r.ID)
		return clearIntents()
	case o.unknown != nil:
		// The intents stay: the engine's ResolveMerge reads each PR back.
		log.Warn().Err(o.unknown).Str("run", r.ID).Msg("fast-forward outcome unknown; will read it back")
		return nil
	}
	n := len(cur)
	for i, e := range cur {
		if !e.MergeIntent || !e.Active() {
			continue // recorded meanwhile (its merged webhook was read back)
		}
		c := o.chain[n-1-i]
		out := mergeOutcome{sha: c.SHA}
		if i == n-1 {
			out.mismatch, out.verifyErr = o.mismatch, o.verifyErr
		}
		if err := s.recordMerge(ctx, fx, q, e, r, c.Parents[0], out, head); err != nil {
			return err
		}
	}
	log.Info().Str("run", r.ID).Ints("prs", r.PRNumbers).Str("before", before).Str("after", o.landedAt).Msg("landed by fast-forward")
	return nil
}
