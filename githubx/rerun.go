package githubx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v66/github"
	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

var _ queue.CheckRerunner = (*Client)(nil)

// RerunFailedCheck asks GitHub to run failed check run ck again on its
// commit: for a GitHub Actions job (ck.App "github-actions") the failed
// jobs of the workflow run of its check suite (POST
// actions/runs/{id}/rerun-failed-jobs, which needs actions: write), for
// another App's check run its check suite re-requested (POST
// check-suites/{id}/rerequest, checks: write). GitHub answers with new
// check runs of the same names on the same commit. When GitHub refuses
// for want of the permission (403 "Resource not accessible by
// integration") the refusal is logged once and remembered for the
// installation: this and every later call there return
// queue.ErrRerunRefused (wrapped) without a request. A commit status, or
// a check run without its suite, is an error: it cannot be re-run.
func (c *Client) RerunFailedCheck(ctx context.Context, repo queue.Repo, ck queue.CheckResult) error {
	what := fmt.Sprintf("re-run check %q (check run %d) in %s", ck.Name, ck.CheckRunID, repo.FullName())
	if ck.Kind != queue.KindCheckRun || ck.SuiteID == 0 {
		return fmt.Errorf("failed to %s: only a check run with its check suite can be re-run", what)
	}
	inst, gh, err := c.installation(ctx, repo)
	if err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	c.mu.Lock()
	refused := c.noRerun[inst]
	c.mu.Unlock()
	if refused {
		return fmt.Errorf("failed to %s: %w (installation %d)", what, queue.ErrRerunRefused, inst)
	}
	p := escapedRepo(repo)
	if ck.App == queue.GitHubActionsApp {
		runs, _, err := gh.Actions.ListRepositoryWorkflowRuns(ctx, p.owner, p.name,
			&github.ListWorkflowRunsOptions{CheckSuiteID: ck.SuiteID, ListOptions: github.ListOptions{PerPage: 1}})
		if err != nil {
			return c.rerunFailed(ctx, inst, repo, "find the workflow run to "+what, err)
		}
		if len(runs.WorkflowRuns) == 0 {
			return fmt.Errorf("failed to %s: no workflow run of check suite %d", what, ck.SuiteID)
		}
		id := runs.WorkflowRuns[0].GetID()
		if _, err := gh.Actions.RerunFailedJobsByID(ctx, p.owner, p.name, id); err != nil {
			return c.rerunFailed(ctx, inst, repo, fmt.Sprintf("%s (the failed jobs of workflow run %d)", what, id), err)
		}
		return nil
	}
	if _, err := gh.Checks.ReRequestCheckSuite(ctx, p.owner, p.name, ck.SuiteID); err != nil {
		return c.rerunFailed(ctx, inst, repo, fmt.Sprintf("%s (check suite %d re-requested)", what, ck.SuiteID), err)
	}
	return nil
}

// rerunFailed wraps err; a refusal for want of permission is remembered
// for installation inst (logged the first time) and wraps
// queue.ErrRerunRefused.
func (c *Client) rerunFailed(ctx context.Context, inst int64, repo queue.Repo, what string, err error) error {
	if !notPermitted(err) {
		return c.fail(repo, what, err)
	}
	c.mu.Lock()
	first := !c.noRerun[inst]
	if c.noRerun == nil {
		c.noRerun = map[int64]bool{}
	}
	c.noRerun[inst] = true
	c.mu.Unlock()
	if first {
		zerolog.Ctx(ctx).Warn().Int64("installation", inst).Str("repo", repo.FullName()).Str("github", messageOf(err)).
			Msg("the App may not re-run failed checks in this installation (grant actions: write and checks: write); failed checks are retried on a new test commit instead")
	}
	return fmt.Errorf("failed to %s: %w: %w", what, queue.ErrRerunRefused, err)
}

// notPermitted reports whether GitHub refused a call because the
// installation lacks a permission (403 "Resource not accessible by
// integration"), not a rate limit.
func notPermitted(err error) bool {
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &ab) {
		return false
	}
	return statusOf(err) == http.StatusForbidden && strings.Contains(strings.ToLower(messageOf(err)), "not accessible by integration")
}
