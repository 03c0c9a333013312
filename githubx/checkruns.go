package githubx

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// UpsertCheckRun updates check run id when id is non-zero and the run still
// exists, else creates run on run.HeadSHA; it returns the run's id. A
// completed run carries its conclusion and a completion time; the output is
// sent when it has a title or a summary.
func (c *Client) UpsertCheckRun(ctx context.Context, repo queue.Repo, id int64, run queue.CheckRun) (int64, error) {
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return 0, fmt.Errorf("failed to write check run %q of %s: %w", run.Name, repo.FullName(), err)
	}
	ctx = WithWriteClass(ctx, ClassSurface)
	p := escapedRepo(repo)
	var (
		status, conclusion, detailsURL, externalID *string
		completedAt                                *github.Timestamp
		output                                     *github.CheckRunOutput
	)
	if run.Status != "" {
		status = github.String(run.Status)
	}
	if run.Status == "completed" {
		conclusion = github.String(run.Conclusion)
		completedAt = &github.Timestamp{Time: c.now()}
	}
	if run.DetailsURL != "" {
		detailsURL = github.String(run.DetailsURL)
	}
	if run.ExternalID != "" {
		externalID = github.String(run.ExternalID)
	}
	if run.Title != "" || run.Summary != "" {
		output = &github.CheckRunOutput{Title: github.String(run.Title), Summary: github.String(run.Summary)}
	}

	if id != 0 {
		_, _, err := gh.Checks.UpdateCheckRun(ctx, p.owner, p.name, id, github.UpdateCheckRunOptions{
			Name:        run.Name,
			DetailsURL:  detailsURL,
			ExternalID:  externalID,
			Status:      status,
			Conclusion:  conclusion,
			CompletedAt: completedAt,
			Output:      output,
		})
		if err == nil {
			return id, nil
		}
		if statusOf(err) != http.StatusNotFound {
			return 0, c.fail(repo, fmt.Sprintf("update check run %d (%q) of %s", id, run.Name, repo.FullName()), err)
		}
	}
	created, _, err := gh.Checks.CreateCheckRun(ctx, p.owner, p.name, github.CreateCheckRunOptions{
		Name:        run.Name,
		HeadSHA:     run.HeadSHA,
		DetailsURL:  detailsURL,
		ExternalID:  externalID,
		Status:      status,
		Conclusion:  conclusion,
		CompletedAt: completedAt,
		Output:      output,
	})
	if err != nil {
		return 0, c.fail(repo, fmt.Sprintf("create check run %q on %s of %s", run.Name, run.HeadSHA, repo.FullName()), err)
	}
	return created.GetID(), nil
}
