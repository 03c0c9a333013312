package githubx

import (
	"context"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

var _ queue.WorkflowRuns = (*Client)(nil)

// WorkflowRun reads a GitHub Actions run (GET actions/runs/{id}) and
// returns its status (queued, in_progress, completed, waiting, …) and head
// SHA. It serves the x-forked-workflow-run-id credential: CI on a PR from
// a fork proves itself by a run GitHub reports in progress for the PR's
// head. A 5xx, timeout or rate limit wraps queue.ErrTransient; a missing
// run is an error with StatusCode 404.
func (c *Client) WorkflowRun(ctx context.Context, repo queue.Repo, id int64) (string, string, error) {
	what := fmt.Sprintf("read workflow run %d of %s", id, repo.FullName())
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return "", "", fmt.Errorf("failed to %s: %w", what, err)
	}
	p := escapedRepo(repo)
	run, _, err := gh.Actions.GetWorkflowRunByID(ctx, p.owner, p.name, id)
	if err != nil {
		return "", "", c.fail(repo, what, err)
	}
	return run.GetStatus(), run.GetHeadSHA(), nil
}
