package service

import (
	"context"
	"fmt"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
)

// checkDirect finds out (no lock held) whether an entry's head contains the
// target head and what checks passed on its head, and records both: the
// checks as facts like any others, the ancestry on the entry with the
// target head it was checked on. The engine decides from them.
func (s *Service) checkDirect(fx *effects, snap *engine.Snapshot, a engine.CheckDirect) {
	q := snap.Queue
	e := snap.Entry(a.EntryID)
	if e == nil {
		return
	}
	repo := q.Key.Repo
	var contains bool
	var checkErr error
	fx.later(func(ctx context.Context) {
		checker, ok := s.gh.(queue.AncestryChecker)
		if !ok {
			return // the port cannot compare commits: never direct
		}
		if contains, checkErr = checker.Contains(ctx, repo, a.Before, e.PRSHA); checkErr != nil || !contains {
			return
		}
		checks, err := s.gh.Checks(ctx, repo, e.PRSHA)
		if err != nil {
			checkErr = fmt.Errorf("failed to read the checks of #%d: %w", e.PRNumber, err)
			return
		}
		for _, c := range checks {
			if err := s.store.RecordCheck(ctx, repo, c); err != nil {
				checkErr = fmt.Errorf("failed to record check %s on #%d: %w", c.Name, e.PRNumber, err)
				return
			}
		}
	})
	fx.then(func(ctx context.Context) error {
		if checkErr != nil {
			return fmt.Errorf("failed to check #%d for a direct merge: %w", e.PRNumber, checkErr)
		}
		cur, err := s.store.GetEntryByID(ctx, e.ID)
		if err != nil {
			return fmt.Errorf("failed to load entry %s: %w", e.ID, err)
		}
		if !cur.Active() {
			return nil
		}
		cur.DirectBase, cur.DirectContains = a.Before, contains
		if err := s.store.SaveEntry(ctx, cur); err != nil {
			return fmt.Errorf("failed to record the direct-merge check of #%d: %w", e.PRNumber, err)
		}
		return nil
	})
}
