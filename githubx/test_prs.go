package githubx

import (
	"context"
	"fmt"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

var _ queue.TestPRWriter = (*Client)(nil)

// OpenDraftPR opens a draft PR of branch head into base and returns its
// number.
func (c *Client) OpenDraftPR(ctx context.Context, repo queue.Repo, head, base, title, body string) (int, error) {
	what := fmt.Sprintf("open a draft PR of %s into %s in %s", head, base, repo.FullName())
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return 0, fmt.Errorf("failed to %s: %w", what, err)
	}
	ctx = WithWriteClass(ctx, ClassSurface)
	p := escapedRepo(repo)
	pr, _, err := gh.PullRequests.Create(ctx, p.owner, p.name, &github.NewPullRequest{
		Title: github.String(title), Head: github.String(head), Base: github.String(base),
		Body: github.String(body), Draft: github.Bool(true)})
	if err != nil {
		return 0, c.fail(repo, what, err)
	}
	return pr.GetNumber(), nil
}

// EditPR sets a PR's title and body.
func (c *Client) EditPR(ctx context.Context, repo queue.Repo, number int, title, body string) error {
	return c.editPR(ctx, repo, number, fmt.Sprintf("edit PR #%d of %s", number, repo.FullName()),
		&github.PullRequest{Title: github.String(title), Body: github.String(body)})
}

// ClosePR closes a PR; closing a closed one is not an error (GitHub
// accepts it).
func (c *Client) ClosePR(ctx context.Context, repo queue.Repo, number int) error {
	return c.editPR(ctx, repo, number, fmt.Sprintf("close PR #%d of %s", number, repo.FullName()),
		&github.PullRequest{State: github.String("closed")})
}

func (c *Client) editPR(ctx context.Context, repo queue.Repo, number int, what string, edit *github.PullRequest) error {
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	ctx = WithWriteClass(ctx, ClassSurface)
	p := escapedRepo(repo)
	if _, _, err := gh.PullRequests.Edit(ctx, p.owner, p.name, number, edit); err != nil {
		return c.fail(repo, what, err)
	}
	return nil
}

// FindPRByHead returns the newest PR, open or closed, of branch head in
// repo itself; 0 if there is none.
func (c *Client) FindPRByHead(ctx context.Context, repo queue.Repo, head string) (int, error) {
	what := fmt.Sprintf("look for the PR of %s in %s", head, repo.FullName())
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return 0, fmt.Errorf("failed to %s: %w", what, err)
	}
	ctx = WithWriteClass(ctx, ClassSurface)
	p := escapedRepo(repo)
	opts := &github.PullRequestListOptions{State: "all", Head: repo.Owner + ":" + head,
		ListOptions: github.ListOptions{PerPage: perPage}}
	found := 0
	for {
		page, resp, err := gh.PullRequests.List(ctx, p.owner, p.name, opts)
		if err != nil {
			return 0, c.fail(repo, what, err)
		}
		for _, pr := range page {
			if pr.GetHead().GetRef() == head && pr.GetNumber() > found {
				found = pr.GetNumber()
			}
		}
		if resp.NextPage == 0 {
			return found, nil
		}
		opts.Page = resp.NextPage
	}
}
