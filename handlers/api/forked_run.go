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
// confirms that run is in progress for the PR's current head (SPEC §7).
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

// confirmForkedRun asks GitHub, through the service, whether the request's
// workflow run vouches for PR n at sha in repo: 404 if the run is in
// progress but GitHub does not know the PR, 401 if the run does not vouch,
// 500 if GitHub could not be asked (the client retries).
func (a *API) confirmForkedRun(ctx context.Context, runID int64, repo queue.Repo, n int, sha string) error {
	err := a.svc.ConfirmForkedRun(ctx, repo, n, sha, runID)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, queue.ErrPRNotFound):
		loggerFrom(ctx).Info().Err(err).Msg("forked workflow run names a pull request GitHub does not know")
		return prNotOnGitHub(repo, n)
	case errors.Is(err, queue.ErrRunNotConfirmed):
		loggerFrom(ctx).Info().Err(err).Msg("forked workflow run not confirmed")
		return unauthorized(fmt.Sprintf("workflow run %d is not in progress for the head of pull request #%d", runID, n))
	}
	return fmt.Errorf("failed to confirm forked workflow run %d: %w", runID, err)
}
