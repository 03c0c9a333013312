package githubx

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

var _ queue.AncestryChecker = (*Client)(nil)

// Contains reports whether commit head contains commit ancestor (the
// compare API says head is ahead of or identical to ancestor).
func (c *Client) Contains(ctx context.Context, repo queue.Repo, ancestor, head string) (bool, error) {
	what := fmt.Sprintf("compare %s...%s in %s", ancestor, head, repo.FullName())
	if err := errors.Join(checkPathText("commit", ancestor), checkPathText("commit", head)); err != nil {
		return false, fmt.Errorf("failed to %s: %w", what, err)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return false, fmt.Errorf("failed to %s: %w", what, err)
	}
	p := escapedRepo(repo)
	cmp, _, err := gh.Repositories.CompareCommits(ctx, p.owner, p.name, ancestor, head, &github.ListOptions{PerPage: 1})
	if err != nil {
		return false, c.fail(repo, what, err)
	}
	switch cmp.GetStatus() {
	case "ahead", "identical":
		return true, nil
	default:
		return false, nil
	}
}
