package githubx

import (
	"context"
	"fmt"

	"github.com/mergequeue/mq/githubx/ghfacts"
	"github.com/mergequeue/mq/queue"
)

var _ queue.WorkflowRuns = (*Client)(nil)

// WorkflowRun reads a GitHub Actions run (GET actions/runs/{id}) as
// ghfacts.WorkflowRun reduces it: its status (queued, in_progress,
// completed, waiting, …), the event that triggered it, its head SHA and
// branch, its head repository and the PRs GitHub lists for it (none for a
// PR from a fork). It serves the
// x-forked-workflow-run-id credential: CI on a PR from a fork proves
// itself by its own run, which GitHub reports in progress for the PR's
// head. A 5xx, timeout or rate limit wraps queue.ErrTransient; a missing
// run is an error with StatusCode 404.
func (c *Client) WorkflowRun(ctx context.Context, repo queue.Repo, id int64) (*queue.WorkflowRun, error) {
	what := fmt.Sprintf("read workflow run %d of %s", id, repo.FullName())
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("failed to %s: %w", what, err)
	}
	p := escapedRepo(repo)
	run, _, err := gh.Actions.GetWorkflowRunByID(ctx, p.owner, p.name, id)
	if err != nil {
		return nil, c.fail(repo, what, err)
	}
	return ghfacts.WorkflowRun(run), nil
}
