package service

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

// landedMismatch compares what landed with what run r tested (SPEC §5.10).
// In single mode the trees must be equal. In parallel mode independent PRs
// may have landed in between, and may touch the files of the unit's
// dependencies, so each entry's landing is checked on its own paths: every
// path its PR changes, and no PR of the run after it, must hold in the
// landed commit the content it had in the tested one (paths that later
// members change too are checked when those land). A PR's own paths are
// its changes since it forked from the target, read against `before` (the
// target head it was merged onto): diffing against the run's older base
// would count target commits the PR branch already contains as its own.
// k is the landing entry's index in r.EntryIDs. It returns a description
// of the mismatch, or "" when the landing is verified (or cannot be).
func (s *Service) landedMismatch(ctx context.Context, q *queue.Queue, r *queue.TestRun, k int, before, landed string) (string, error) {
	repo := q.Key.Repo
	if q.Settings.Mode != queue.ModeParallel {
		landedTree, err := s.gh.TreeSHA(ctx, repo, landed)
		if err != nil {
			return "", fmt.Errorf("failed to read landed tree: %w", err)
		}
		testedTree, err := s.gh.TreeSHA(ctx, repo, r.SHA)
		if err != nil {
			return "", fmt.Errorf("failed to read tested tree: %w", err)
		}
		if landedTree != testedTree {
			return fmt.Sprintf("%s (tree %s) differs from the tested commit %s (tree %s)",
				q.Key.Branch, queue.ShortSHA(landedTree), queue.ShortSHA(r.SHA), queue.ShortSHA(testedTree)), nil
		}
		return "", nil
	}
	differ, ok := s.gh.(queue.FileDiffer)
	if !ok {
		return "", nil
	}
	tested, complete, err := differ.DiffFiles(ctx, repo, r.BaseSHA, r.SHA)
	if err != nil {
		return "", fmt.Errorf("failed to list the tested changes: %w", err)
	}
	now, complete2, err := differ.DiffFiles(ctx, repo, r.BaseSHA, landed)
	if err != nil {
		return "", fmt.Errorf("failed to list the landed changes: %w", err)
	}
	if !complete || !complete2 {
		zerolog.Ctx(ctx).Warn().Str("run", r.ID).Msg("too many changed files to verify the landed paths")
		return "", nil
	}
	if k < 0 || k >= len(r.PRSHAs) {
		return "", nil
	}
	own := map[string]bool{}
	for i, sha := range r.PRSHAs[k:] {
		changed, complete, err := differ.DiffFiles(ctx, repo, before, sha)
		if err != nil {
			return "", fmt.Errorf("failed to list the changes of %s: %w", queue.ShortSHA(sha), err)
		}
		if !complete {
			zerolog.Ctx(ctx).Warn().Str("run", r.ID).Msg("too many changed files to verify the landed paths")
			return "", nil
		}
		for path := range changed {
			if i == 0 {
				own[path] = true // the landing PR's paths…
			} else {
				delete(own, path) // …but those a later member changes too
			}
		}
	}
	var differ2 []string
	for path := range own {
		// A path missing from a diff is unchanged from the run's base.
		want, inTested := tested[path]
		got, inLanded := now[path]
		if inTested != inLanded || want != got {
			differ2 = append(differ2, path)
		}
	}
	if len(differ2) == 0 {
		return "", nil
	}
	sort.Strings(differ2)
	if len(differ2) > 5 {
		differ2 = append(differ2[:5], "…")
	}
	return fmt.Sprintf("%s holds other content than the tested commit %s at %s", q.Key.Branch, queue.ShortSHA(r.SHA), strings.Join(differ2, ", ")), nil
}
