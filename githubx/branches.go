package githubx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// BranchHead returns the commit SHA branch points at (GET branches/{b}).
func (c *Client) BranchHead(ctx context.Context, repo queue.Repo, branch string) (string, error) {
	what := fmt.Sprintf("read the head of branch %s of %s", branch, repo.FullName())
	if err := checkPathText("branch", branch); err != nil {
		return "", fmt.Errorf("failed to %s: %w", what, err)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("failed to %s: %w", what, err)
	}
	// Repositories.GetBranch bypasses Client.Do in go-github v66, losing the
	// typed errors and rate tracking, so the request is made here.
	p := escapedRepo(repo)
	req, err := gh.NewRequest(http.MethodGet, fmt.Sprintf("repos/%v/%v/branches/%v", p.owner, p.name, url.PathEscape(branch)), nil)
	if err != nil {
		return "", fmt.Errorf("failed to %s: %w", what, err)
	}
	b := new(github.Branch)
	if _, err := gh.Do(ctx, req, b); err != nil {
		return "", c.fail(repo, what, err)
	}
	sha := b.GetCommit().GetSHA()
	if sha == "" {
		return "", fmt.Errorf("failed to %s: GitHub returned no commit", what)
	}
	return sha, nil
}

// RequiredChecks returns the status check names branch protection requires
// on branch: the union of the legacy contexts and checks[].context, in
// GitHub's order without duplicates. An unprotected branch, or one without
// required status checks, requires nothing.
func (c *Client) RequiredChecks(ctx context.Context, repo queue.Repo, branch string) ([]string, error) {
	what := fmt.Sprintf("read the required status checks of branch %s of %s", branch, repo.FullName())
	if err := checkPathText("branch", branch); err != nil {
		return nil, fmt.Errorf("failed to %s: %w", what, err)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("failed to %s: %w", what, err)
	}
	p := escapedRepo(repo)
	rsc, _, err := gh.Repositories.GetRequiredStatusChecks(ctx, p.owner, p.name, branch)
	if err != nil {
		if errors.Is(err, github.ErrBranchNotProtected) || statusOf(err) == http.StatusNotFound {
			return []string{}, nil
		}
		return nil, c.fail(repo, what, err)
	}
	names := []string{}
	seen := map[string]bool{}
	add := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	if rsc.Contexts != nil {
		for _, name := range *rsc.Contexts {
			add(name)
		}
	}
	if rsc.Checks != nil {
		for _, check := range *rsc.Checks {
			if check != nil {
				add(check.Context)
			}
		}
	}
	return names, nil
}

// DeleteBranch deletes branch name; a branch that does not exist is not an
// error.
func (c *Client) DeleteBranch(ctx context.Context, repo queue.Repo, name string) error {
	what := fmt.Sprintf("delete branch %s of %s", name, repo.FullName())
	if err := checkPathText("branch", name); err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	ctx = WithWriteClass(ctx, ClassSurface) // clean-up
	if err := deleteRef(ctx, gh, repo, name); err != nil {
		return c.fail(repo, what, err)
	}
	return nil
}

// deleteRef deletes refs/heads/name, treating a missing ref as deleted. The
// caller checked repo and name.
func deleteRef(ctx context.Context, gh *github.Client, repo queue.Repo, name string) error {
	p := escapedRepo(repo)
	_, err := gh.Git.DeleteRef(ctx, p.owner, p.name, "heads/"+name)
	if err != nil && !refMissing(err) {
		return err
	}
	return nil
}

// TreeSHA returns the tree of commit sha. Trees of commits the client
// built or read before are answered from memory (a commit's tree never
// changes).
func (c *Client) TreeSHA(ctx context.Context, repo queue.Repo, sha string) (string, error) {
	what := fmt.Sprintf("read the tree of commit %s of %s", sha, repo.FullName())
	escSHA, err := segment("commit", sha) // go-github does not escape it
	if err != nil {
		return "", fmt.Errorf("failed to %s: %w", what, err)
	}
	if tree, ok := c.trees.get(repoKey(repo), sha); ok {
		return tree, nil
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("failed to %s: %w", what, err)
	}
	p := escapedRepo(repo)
	commit, _, err := gh.Git.GetCommit(ctx, p.owner, p.name, escSHA)
	if err != nil {
		return "", c.fail(repo, what, err)
	}
	tree := commit.GetTree().GetSHA()
	if tree == "" {
		return "", fmt.Errorf("failed to %s: GitHub returned no tree", what)
	}
	c.trees.put(repoKey(repo), sha, tree)
	return tree, nil
}
