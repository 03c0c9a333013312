package api

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// ForkedRunHeader carries the id of the GitHub Actions run of a PR from a
// fork, which cannot hold an API token. It is accepted by
// setImpactedTargets only, when no x-api-token is sent, and only if GitHub
// confirms that run is the PR's own pull_request run, in progress for the
// PR's current head (SPEC §7); such requests are bounded by
// ForkRunLimits.
const ForkedRunHeader = "x-forked-workflow-run-id"

type forkedRunKey struct{}

func withForkedRun(ctx context.Context, runID int64) context.Context {
	return context.WithValue(ctx, forkedRunKey{}, runID)
}

// forkedRunFrom returns the workflow run id a request authenticated with
// (0 for token-authenticated requests).
func forkedRunFrom(ctx context.Context) int64 {
	id, _ := ctx.Value(forkedRunKey{}).(int64)
	return id
}

// parseForkedRunID reads the header value: a positive integer, else 401.
func parseForkedRunID(v string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || id <= 0 {
		return 0, unauthorized("invalid " + ForkedRunHeader + ": must be a GitHub Actions run id")
	}
	return id, nil
}

// confirmForkedRun decides whether the request's workflow run vouches for
// PR n at sha in the queue key, asking GitHub only when it must: 404 if
// the queue does not exist (no GitHub call); GitHub's answer about the
// same run, PR and SHA if one was kept (no GitHub call); 429 past the
// repository's budget of confirmations (no GitHub call); else the
// service's confirmation, whose definite answer is kept. Then: 404 if
// GitHub does not know the PR, 401 if the run does not vouch, 500 if
// GitHub could not be asked (the client retries).
func (a *API) confirmForkedRun(ctx context.Context, runID int64, key queue.QueueKey, n int, sha string) error {
	if err := a.svc.QueueExists(ctx, key); err != nil {
		if errors.Is(err, queue.ErrNotFound) {
			return queueNotFound(key)
		}
		return fmt.Errorf("failed to look up queue %s: %w", key, err)
	}
	k := runKey{repo: key.Repo.Fold(), runID: runID, pr: n, sha: sha}
	found, err := a.forks.verdicts.get(k, a.now())
	if found {
		loggerFrom(ctx).Debug().Bool("confirmed", err == nil).Msg("forked workflow run answered from GitHub's recent answer")
	} else {
		if err := a.forks.askGitHub(key.Repo, a.now()); err != nil {
			return err
		}
		err = a.svc.ConfirmForkedRun(ctx, key.Repo, n, sha, runID)
		if err == nil || errors.Is(err, queue.ErrRunNotConfirmed) {
			a.forks.verdicts.put(k, err, a.now())
		}
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, queue.ErrPRNotFound):
		loggerFrom(ctx).Info().Err(err).Msg("forked workflow run names a pull request GitHub does not know")
		return prNotOnGitHub(key.Repo, n)
	case errors.Is(err, queue.ErrRunNotConfirmed):
		loggerFrom(ctx).Info().Err(err).Msg("forked workflow run not confirmed")
		return unauthorized(fmt.Sprintf("workflow run %d is not the in-progress run of pull request #%d from a fork at its head", runID, n))
	}
	return fmt.Errorf("failed to confirm forked workflow run %d: %w", runID, err)
}
