package githubx

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// FindComment pages through the comments of PR number updated at or after
// since (zero: all) and returns the id of the newest whose body contains
// marker; 0 if none does. The reconciler looks a comment up this way
// before creating one whose earlier creation may have gone unrecorded.
func (c *Client) FindComment(ctx context.Context, repo queue.Repo, number int, marker string, since time.Time) (int64, error) {
	what := fmt.Sprintf("look for a comment on #%d of %s", number, repo.FullName())
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return 0, fmt.Errorf("failed to %s: %w", what, err)
	}
	ctx = WithWriteClass(ctx, ClassSurface)
	p := escapedRepo(repo)
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: perPage}}
	if !since.IsZero() {
		opts.Since = &since
	}
	var found int64
	for {
		page, resp, err := gh.Issues.ListComments(ctx, p.owner, p.name, number, opts)
		if err != nil {
			return 0, c.fail(repo, what, err)
		}
		for _, cm := range page {
			if strings.Contains(cm.GetBody(), marker) && cm.GetID() > found {
				found = cm.GetID()
			}
		}
		if resp.NextPage == 0 {
			return found, nil
		}
		opts.Page = resp.NextPage
	}
}

// FindCheckRun returns the id of the newest check run named name on commit
// sha whose external id is externalID; 0 if there is none.
func (c *Client) FindCheckRun(ctx context.Context, repo queue.Repo, sha, name, externalID string) (int64, error) {
	what := fmt.Sprintf("look for check run %q on %s of %s", name, sha, repo.FullName())
	if err := checkPathText("commit", sha); err != nil {
		return 0, fmt.Errorf("failed to %s: %w", what, err)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return 0, fmt.Errorf("failed to %s: %w", what, err)
	}
	ctx = WithWriteClass(ctx, ClassSurface)
	p := escapedRepo(repo)
	opts := &github.ListCheckRunsOptions{CheckName: github.String(name), Filter: github.String("all"),
		ListOptions: github.ListOptions{PerPage: perPage}}
	var found int64
	for {
		page, resp, err := gh.Checks.ListCheckRunsForRef(ctx, p.owner, p.name, sha, opts)
		if err != nil {
			return 0, c.fail(repo, what, err)
		}
		for _, r := range page.CheckRuns {
			if r.GetName() == name && r.GetExternalID() == externalID && r.GetID() > found {
				found = r.GetID()
			}
		}
		if resp.NextPage == 0 {
			return found, nil
		}
		opts.Page = resp.NextPage
	}
}

// ListBranches returns the names of the repository's branches that start
// with prefix (git's matching-refs).
func (c *Client) ListBranches(ctx context.Context, repo queue.Repo, prefix string) ([]string, error) {
	what := fmt.Sprintf("list the branches %s* of %s", prefix, repo.FullName())
	// A prefix may end in a slash ("mq-temp/"): that is the whole
	// directory, not an empty path component.
	if err := checkPathText("branch prefix", strings.TrimSuffix(prefix, "/")); err != nil {
		return nil, fmt.Errorf("failed to %s: %w", what, err)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("failed to %s: %w", what, err)
	}
	ctx = WithWriteClass(ctx, ClassSurface)
	p := escapedRepo(repo)
	opts := &github.ReferenceListOptions{Ref: "heads/" + prefix, ListOptions: github.ListOptions{PerPage: perPage}}
	var out []string
	for {
		page, resp, err := gh.Git.ListMatchingRefs(ctx, p.owner, p.name, opts)
		if err != nil {
			return nil, c.fail(repo, what, err)
		}
		for _, r := range page {
			if name, ok := strings.CutPrefix(r.GetRef(), "refs/heads/"); ok {
				out = append(out, name)
			}
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
