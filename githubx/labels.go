package githubx

import (
	"context"
	"fmt"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

var _ queue.Labeler = (*Client)(nil)

// AddLabel adds a label to a PR.
func (c *Client) AddLabel(ctx context.Context, repo queue.Repo, number int, label string) error {
	what := fmt.Sprintf("add label %q to #%d of %s", label, number, repo.FullName())
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	ctx = WithWriteClass(ctx, ClassSurface)
	p := escapedRepo(repo)
	if _, _, err := gh.Issues.AddLabelsToIssue(ctx, p.owner, p.name, number, []string{label}); err != nil {
		return c.fail(repo, what, err)
	}
	return nil
}

// RemoveLabel removes a label from a PR; a label the PR lacks is not an
// error.
func (c *Client) RemoveLabel(ctx context.Context, repo queue.Repo, number int, label string) error {
	what := fmt.Sprintf("remove label %q from #%d of %s", label, number, repo.FullName())
	escLabel, err := segment("label", label) // go-github does not escape it
	if err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	ctx = WithWriteClass(ctx, ClassSurface)
	p := escapedRepo(repo)
	if _, err := gh.Issues.RemoveLabelForIssue(ctx, p.owner, p.name, number, escLabel); err != nil {
		if StatusCode(err) == 404 {
			return nil
		}
		return c.fail(repo, what, err)
	}
	return nil
}

// ListLabels returns the names of a PR's labels.
func (c *Client) ListLabels(ctx context.Context, repo queue.Repo, number int) ([]string, error) {
	what := fmt.Sprintf("list the labels of #%d of %s", number, repo.FullName())
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("failed to %s: %w", what, err)
	}
	ctx = WithWriteClass(ctx, ClassSurface)
	p := escapedRepo(repo)
	opts := &github.ListOptions{PerPage: perPage}
	var out []string
	for {
		page, resp, err := gh.Issues.ListLabelsByIssue(ctx, p.owner, p.name, number, opts)
		if err != nil {
			return nil, c.fail(repo, what, err)
		}
		for _, l := range page {
			out = append(out, l.GetName())
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
