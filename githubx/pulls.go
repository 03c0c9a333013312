package githubx

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// GetPullRequest reads a PR fresh from GitHub; a missing PR is
// queue.ErrPRNotFound.
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
	return &queue.PullRequest{Number: number, HeadRef: pr.GetHead().GetRef(), HeadRepo: pr.GetHead().GetRepo().GetFullName(),
		PRFacts: prFacts(pr, c.now())}, nil
}

func prFacts(pr *github.PullRequest, readAt time.Time) queue.PRFacts {
	facts := queue.PRFacts{
		Title:          pr.GetTitle(),
		Body:           pr.GetBody(),
		Author:         pr.GetUser().GetLogin(),
		HeadSHA:        pr.GetHead().GetSHA(),
		BaseBranch:     pr.GetBase().GetRef(),
		Open:           pr.GetState() == "open",
		Draft:          pr.GetDraft(),
		Merged:         pr.GetMerged(),
		MergeCommitSHA: pr.GetMergeCommitSHA(),
		MergeableState: pr.GetMergeableState(),
		ReadAt:         readAt,
	}
	// Facts are as of GitHub's updated_at, the clock webhook payloads use
	// too, so facts from reads and from webhooks order consistently.
	if t := pr.GetUpdatedAt().Time; !t.IsZero() {
		facts.ReadAt = t.UTC()
	}
	if pr.Mergeable != nil {
		m := *pr.Mergeable
		facts.Mergeable = &m
	}
	return facts
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
