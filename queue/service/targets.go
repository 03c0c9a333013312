package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// SetImpactedTargets stores a PR's impacted targets in a queue, replacing
// earlier ones, and wakes the queue. The PR need not be submitted yet.
// ErrNotFound if the queue is unknown; *InputError for a missing PR number
// or SHA; with VerifyPR, ErrPRNotFound if GitHub does not know the PR (and
// a transient GitHub failure as such), nothing stored in either case. An
// upload from a forked workflow run (Source TargetsFromForkRun) over
// targets an API token set for the same SHA is ErrTargetsSetByToken and
// stores nothing: CI that anyone can start on a fork cannot overrule the
// project's own. Targets a token set for another SHA are stale (the head
// moved on) and are replaced. The check and the write are one transaction.
func (s *Service) SetImpactedTargets(ctx context.Context, u queue.TargetsUpdate) error {
	if u.PRNumber <= 0 {
		return queue.Inputf("pr.number is required")
	}
	if u.SHA == "" {
		return queue.Inputf("pr.sha is required")
	}
	q, err := s.store.GetQueue(ctx, u.Key)
	if err != nil {
		return fmt.Errorf("failed to load queue %s: %w", u.Key, err)
	}
	if u.VerifyPR {
		if _, err := s.gh.GetPullRequest(ctx, q.Key.Repo, u.PRNumber); err != nil {
			return fmt.Errorf("failed to read pull request #%d of %s: %w", u.PRNumber, q.Key.Repo.FullName(), err)
		}
	}
	source := u.Source
	if source == "" {
		source = queue.TargetsFromToken
	}
	t := queue.Targets{QueueID: q.ID, PRNumber: u.PRNumber, SHA: u.SHA, All: u.All, UpdatedAt: s.now(), Source: source}
	if !u.All {
		t.List = u.List
		if t.List == nil {
			t.List = []string{}
		}
	}
	err = s.store.WithTx(ctx, func(tx queue.Store) error {
		if source == queue.TargetsFromForkRun {
			if err := refuseOverToken(ctx, tx, t); err != nil {
				return err
			}
		}
		return tx.SetTargets(ctx, t)
	})
	if err != nil {
		return fmt.Errorf("failed to store impacted targets of #%d in %s: %w", u.PRNumber, u.Key, err)
	}
	s.targets.forget(q.ID, u.PRNumber)
	s.opts.Wake(q.ID)
	return nil
}

// refuseOverToken is ErrTargetsSetByToken when the PR's stored targets are
// for t's SHA and were not uploaded by a forked workflow run (targets
// stored before their source was kept count as a token's).
func refuseOverToken(ctx context.Context, tx queue.Store, t queue.Targets) error {
	old, err := tx.GetTargets(ctx, t.QueueID, t.PRNumber)
	switch {
	case errors.Is(err, queue.ErrNotFound):
		return nil
	case err != nil:
		return err
	case old.Source != queue.TargetsFromForkRun && strings.EqualFold(old.SHA, t.SHA):
		return fmt.Errorf("targets of #%d at %s: %w", t.PRNumber, queue.ShortSHA(t.SHA), queue.ErrTargetsSetByToken)
	}
	return nil
}

// QueueExists is nil if the queue exists, else ErrNotFound (wrapped). It
// reads the store only: the REST API asks it before any GitHub call made
// for a request without a token.
func (s *Service) QueueExists(ctx context.Context, key queue.QueueKey) error {
	if _, err := s.store.GetQueue(ctx, key); err != nil {
		return fmt.Errorf("failed to load queue %s: %w", key, err)
	}
	return nil
}

// ForkRunEvent is the only event whose workflow runs vouch for a PR from a
// fork. pull_request_target runs are not accepted: GitHub reports them on
// the base branch (head SHA and head repository are the base's), and they
// run with the repository's secrets, so they can hold an API token.
const ForkRunEvent = "pull_request"

// ConfirmForkedRun checks the credential of a CI run on a PR from a fork,
// which cannot hold an API token. The run must be that PR's own run:
// GitHub reports workflow run runID in repo as queued or in progress,
// triggered by a pull_request event, on head SHA sha, from a head
// repository that is not repo itself (a fork: branches of repo get CI with
// secrets, which uses a token); if GitHub lists pull requests for the run
// (it lists none for forks) PR prNumber is among them; and PR prNumber's
// current head is sha, on the run's head branch in the run's head
// repository. Anything else is ErrRunNotConfirmed (wrapped with why); a
// run for a PR GitHub does not know also wraps ErrPRNotFound; a transient
// GitHub failure is returned as such (the caller may retry). It makes at
// most two GitHub calls: the run, then the PR.
func (s *Service) ConfirmForkedRun(ctx context.Context, repo queue.Repo, prNumber int, sha string, runID int64) error {
	wr, ok := s.gh.(queue.WorkflowRuns)
	if !ok {
		return fmt.Errorf("this GitHub port cannot read workflow runs: %w", queue.ErrRunNotConfirmed)
	}
	if runID <= 0 || sha == "" || prNumber <= 0 {
		return fmt.Errorf("incomplete forked run credential: %w", queue.ErrRunNotConfirmed)
	}
	run, err := wr.WorkflowRun(ctx, repo, runID)
	if err != nil {
		if errors.Is(err, queue.ErrTransient) {
			return fmt.Errorf("failed to read workflow run %d: %w", runID, err)
		}
		return fmt.Errorf("workflow run %d of %s: %w: %w", runID, repo.FullName(), queue.ErrRunNotConfirmed, err)
	}
	if err := runVouches(run, repo, prNumber, sha); err != nil {
		return fmt.Errorf("workflow run %d %w: %w", runID, err, queue.ErrRunNotConfirmed)
	}
	pr, err := s.gh.GetPullRequest(ctx, repo, prNumber)
	if err != nil {
		if errors.Is(err, queue.ErrTransient) {
			return fmt.Errorf("failed to read pull request #%d: %w", prNumber, err)
		}
		return fmt.Errorf("pull request #%d of %s: %w: %w", prNumber, repo.FullName(), queue.ErrRunNotConfirmed, err)
	}
	switch {
	case pr.HeadSHA != sha:
		return fmt.Errorf("pull request #%d head is %s, not %s: %w", prNumber, queue.ShortSHA(pr.HeadSHA), queue.ShortSHA(sha), queue.ErrRunNotConfirmed)
	case !strings.EqualFold(pr.HeadRepo, run.HeadRepo):
		return fmt.Errorf("pull request #%d comes from %q, workflow run %d from %q: %w", prNumber, pr.HeadRepo, runID, run.HeadRepo, queue.ErrRunNotConfirmed)
	case run.HeadBranch != "" && pr.HeadRef != run.HeadBranch:
		return fmt.Errorf("pull request #%d head branch is %q, workflow run %d runs %q: %w", prNumber, pr.HeadRef, runID, run.HeadBranch, queue.ErrRunNotConfirmed)
	}
	return nil
}

// runVouches checks what the run alone tells: in progress, a pull_request
// run from a fork, on sha, and not listed for other PRs only. The error
// completes "workflow run N …".
func runVouches(run *queue.WorkflowRun, repo queue.Repo, prNumber int, sha string) error {
	switch {
	case run.Status != "queued" && run.Status != "in_progress":
		return fmt.Errorf("is %q, not in progress", run.Status)
	case run.Event != ForkRunEvent:
		return fmt.Errorf("was triggered by %q, not by a pull request (%s)", run.Event, ForkRunEvent)
	case run.HeadSHA != sha:
		return fmt.Errorf("runs %s, not %s", queue.ShortSHA(run.HeadSHA), queue.ShortSHA(sha))
	case run.HeadRepo == "":
		return errors.New("has no head repository")
	case strings.EqualFold(run.HeadRepo, repo.FullName()):
		return fmt.Errorf("runs on a branch of %s itself, not of a fork: its CI can use an API token", repo.FullName())
	case len(run.PullRequests) > 0 && !slices.Contains(run.PullRequests, prNumber):
		return fmt.Errorf("runs for pull requests %v, not #%d", run.PullRequests, prNumber)
	}
	return nil
}
