package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/rs/zerolog"
)

// AncestryChecker is the optional part of the GitHub port that tells
// whether a commit contains another; direct merges need it.
type AncestryChecker interface {
	// Contains reports whether commit head contains commit ancestor.
	Contains(ctx context.Context, repo Repo, ancestor, head string) (bool, error)
}

// DirectMerge merges an up-to-date entry whose own checks passed without a
// test run (directMergeMode always, SPEC §5.8), once the Service confirms it
// is eligible.
type DirectMerge struct {
	EntryID string
	Before  string
}

func (DirectMerge) isAction() {}

// direct proposes a direct merge for the head of the chain when the mode
// allows it and it was not found ineligible on the current target head.
func (p *planner) direct() Action {
	q, s := p.q, p.s
	if q.Settings.DirectMergeMode != DirectMergeAlways || !q.StartsRuns() || !q.Merges() || s.TargetHead == "" {
		return nil
	}
	_, chain, _ := p.layout()
	if len(chain) == 0 {
		return nil
	}
	e := chain[0]
	if e.State != StatePending || e.RunID != "" || s.DirectChecked[e.ID] == s.TargetHead {
		return nil
	}
	return DirectMerge{EntryID: e.ID, Before: s.TargetHead}
}

// directMerge checks eligibility (the PR head contains the target head and
// its required checks passed on that head) and merges, or records that the
// entry must go through a test run on this target head.
func (s *Service) directMerge(ctx context.Context, snap *Snapshot, d DirectMerge, head *string) error {
	q := snap.Queue
	e := snap.entry(d.EntryID)
	if e == nil {
		return fmt.Errorf("entry %s is not active", d.EntryID)
	}
	ok, why, err := s.directEligible(ctx, q, e, d.Before)
	if err != nil {
		return err
	}
	if !ok {
		zerolog.Ctx(ctx).Debug().Int("pr", e.PRNumber).Str("why", why).Msg("not eligible for a direct merge")
		s.mu.Lock()
		s.directChecked[e.ID] = d.Before
		s.mu.Unlock()
		return nil
	}
	return s.merge(ctx, snap, Merge{EntryID: e.ID, Before: d.Before}, head)
}

func (s *Service) directEligible(ctx context.Context, q *Queue, e *Entry, target string) (bool, string, error) {
	checker, ok := s.gh.(AncestryChecker)
	if !ok {
		return false, "the GitHub port cannot compare commits", nil
	}
	contains, err := checker.Contains(ctx, q.Key.Repo, target, e.PRSHA)
	if err != nil {
		return false, "", fmt.Errorf("failed to compare #%d with %s: %w", e.PRNumber, q.Key.Branch, err)
	}
	if !contains {
		return false, "the head does not contain the target branch", nil
	}
	required, any, err := s.requiredChecks(ctx, q)
	if err != nil {
		return false, "", err
	}
	if !any {
		return false, "nothing is required", nil
	}
	checks, err := s.gh.Checks(ctx, q.Key.Repo, e.PRSHA)
	if err != nil {
		if errors.Is(err, ErrTransient) {
			return false, "", fmt.Errorf("failed to read the checks of #%d: %w", e.PRNumber, err)
		}
		return false, "", err
	}
	if status, detail := EvaluateChecks(required, checks); status != RunSucceeded {
		return false, detail, nil
	}
	return true, "", nil
}
