package githubx

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// UpsertComment edits comment id when id is non-zero and the comment still
// exists, else creates a new comment on PR number; it returns the id of the
// comment holding body.
func (c *Client) UpsertComment(ctx context.Context, repo queue.Repo, number int, id int64, body string) (int64, error) {
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return 0, fmt.Errorf("failed to comment on #%d of %s: %w", number, repo.FullName(), err)
	}
	ctx = WithWriteClass(ctx, ClassSurface)
	p := escapedRepo(repo)
	if id != 0 {
		_, _, err := gh.Issues.EditComment(ctx, p.owner, p.name, id, &github.IssueComment{Body: github.String(body)})
		if err == nil {
			return id, nil
		}
		if statusOf(err) != http.StatusNotFound {
			return 0, c.fail(repo, fmt.Sprintf("edit comment %d on #%d of %s", id, number, repo.FullName()), err)
		}
	}
	created, _, err := gh.Issues.CreateComment(ctx, p.owner, p.name, number, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return 0, c.fail(repo, fmt.Sprintf("create a comment on #%d of %s", number, repo.FullName()), err)
	}
	return created.GetID(), nil
}

// AddReaction reacts to issue comment commentID with content ("+1",
// "eyes", …); reacting twice is not an error.
func (c *Client) AddReaction(ctx context.Context, repo queue.Repo, commentID int64, content string) error {
	what := fmt.Sprintf("react %q to comment %d of %s", content, commentID, repo.FullName())
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	ctx = WithWriteClass(ctx, ClassSurface)
	p := escapedRepo(repo)
	if _, _, err := gh.Reactions.CreateIssueCommentReaction(ctx, p.owner, p.name, commentID, content); err != nil {
		return c.fail(repo, what, err)
	}
	return nil
}
