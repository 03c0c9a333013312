package githubx

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mergequeue/mq/githubx/ghfacts"
	"github.com/mergequeue/mq/queue"
)

// GetPullRequest reads a PR fresh from GitHub, as ghfacts.PullRequest
// turns it into facts (ReadAt is now when GitHub gives no updated_at); a
// missing PR is queue.ErrPRNotFound.
func (c *Client) GetPullRequest(ctx context.Context, repo queue.Repo, number int) (*queue.PullRequest, error) {
	what := fmt.Sprintf("get pull request #%d of %s", number, repo.FullName())
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("failed to %s: %w", what, err)
	}
	p := escapedRepo(repo)
	pr, _, err := gh.PullRequests.Get(ctx, p.owner, p.name, number)
	if err != nil {
		c.forget(repo, err)
		if statusOf(err) == http.StatusNotFound {
			return nil, fmt.Errorf("failed to %s: %w: %w", what, queue.ErrPRNotFound, err)
		}
		return nil, wrap(what, err)
	}
	facts := ghfacts.PullRequest(pr)
	facts.Number = number
	if facts.ReadAt.IsZero() {
		facts.ReadAt = c.now()
	}
	return &facts, nil
}

// permissionRoles are the answers Permission promises, strongest first.
var permissionRoles = map[string]bool{"admin": true, "maintain": true, "write": true, "triage": true, "read": true, "none": true}

// Permission returns user's role on repo ("admin", "maintain", "write",
// "triage", "read" or "none"); a user GitHub does not know is "none".
// GitHub's role_name is preferred because its legacy permission field folds
// maintain into write and triage into read; custom roles fall back to it.
func (c *Client) Permission(ctx context.Context, repo queue.Repo, user string) (string, error) {
	what := fmt.Sprintf("read the permission of %s on %s", user, repo.FullName())
	escUser, err := segment("user", user) // go-github does not escape it
	if err != nil {
		return "", fmt.Errorf("failed to %s: %w", what, err)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("failed to %s: %w", what, err)
	}
	p := escapedRepo(repo)
	level, _, err := gh.Repositories.GetPermissionLevel(ctx, p.owner, p.name, escUser)
	if err != nil {
		if statusOf(err) == http.StatusNotFound {
			return "none", nil
		}
		return "", c.fail(repo, what, err)
	}
	if role := level.GetRoleName(); permissionRoles[role] {
		return role, nil
	}
	if perm := level.GetPermission(); permissionRoles[perm] {
		return perm, nil
	}
	return "none", nil
}
