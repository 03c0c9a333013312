package githubx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/go-github/v66/github"
	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/crashpoint"
)

// cleanupTimeout bounds deleting the scratch ref after BuildBranch.
const cleanupTimeout = 30 * time.Second

// BuildBranch assembles a test branch with GitHub's merges API: it points
// refs/heads/<spec.Temp> at spec.From, merges each head in order with a
// real merge commit (a head already contained is skipped by GitHub), and
// publishes the result as refs/heads/<spec.Name>, moving an existing branch
// of that name. It returns the published commit SHA. A conflict merging
// spec.Heads[i] is a *queue.ConflictError with Index i. The scratch ref is
// deleted in every case, even when ctx was cancelled.
func (c *Client) BuildBranch(ctx context.Context, repo queue.Repo, spec queue.BranchSpec) (string, error) {
	what := fmt.Sprintf("build branch %s of %s", spec.Name, repo.FullName())
	if spec.From == "" || spec.Temp == "" || spec.Name == "" {
		return "", fmt.Errorf("failed to %s: incomplete spec (from %q, temp %q)", what, spec.From, spec.Temp)
	}
	if spec.Temp == spec.Name {
		return "", fmt.Errorf("failed to %s: scratch ref equals the branch name", what)
	}
	if err := errors.Join(checkPathText("branch", spec.Temp), checkPathText("branch", spec.Name)); err != nil {
		return "", fmt.Errorf("failed to %s: %w", what, err)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("failed to %s: %w", what, err)
	}
	// Deferred before creating: a create that failed with a 5xx may still
	// have created the ref.
	defer c.deleteScratch(ctx, gh, repo, spec.Temp)

	if err := setRef(ctx, gh, repo, spec.Temp, spec.From); err != nil {
		return "", c.fail(repo, fmt.Sprintf("%s: create scratch ref %s at %s", what, spec.Temp, spec.From), err)
	}
	// The scratch ref exists on GitHub and nothing durable names it.
	crashpoint.Hit(crashpoint.ScratchRefCreated)
	p := escapedRepo(repo)
	for i, head := range spec.Heads {
		mr := &github.RepositoryMergeRequest{Base: github.String(spec.Temp), Head: github.String(head.SHA)}
		if head.Message != "" {
			mr.CommitMessage = github.String(head.Message)
		}
		if _, _, err := gh.Repositories.Merge(ctx, p.owner, p.name, mr); err != nil {
			if statusOf(err) == http.StatusConflict {
				return "", fmt.Errorf("failed to %s: merging #%d: %w", what, head.PRNumber, &queue.ConflictError{Index: i, SHA: head.SHA})
			}
			return "", c.fail(repo, fmt.Sprintf("%s: merge #%d (%s)", what, head.PRNumber, head.SHA), err)
		}
	}
	ref, _, err := gh.Git.GetRef(ctx, p.owner, p.name, "heads/"+spec.Temp)
	if err != nil {
		return "", c.fail(repo, fmt.Sprintf("%s: read scratch ref %s", what, spec.Temp), err)
	}
	sha := ref.GetObject().GetSHA()
	if sha == "" {
		return "", fmt.Errorf("failed to %s: scratch ref %s has no commit", what, spec.Temp)
	}
	if err := setRef(ctx, gh, repo, spec.Name, sha); err != nil {
		return "", c.fail(repo, fmt.Sprintf("%s: publish at %s", what, sha), err)
	}
	return sha, nil
}

// setRef creates refs/heads/branch at sha, or force-moves it there when it
// already exists.
func setRef(ctx context.Context, gh *github.Client, repo queue.Repo, branch, sha string) error {
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(sha)}}
	p := escapedRepo(repo)
	_, _, err := gh.Git.CreateRef(ctx, p.owner, p.name, ref)
	if err == nil || !refExists(err) {
		return err
	}
	if _, _, err := gh.Git.UpdateRef(ctx, p.owner, p.name, ref, true); err != nil {
		return fmt.Errorf("ref exists and force-moving it failed: %w", err)
	}
	return nil
}

// deleteScratch deletes the scratch ref with a context that outlives a
// cancelled ctx; a failure is logged, as it only leaves a stray ref.
func (c *Client) deleteScratch(ctx context.Context, gh *github.Client, repo queue.Repo, temp string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := deleteRef(cctx, gh, repo, temp); err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Str("repo", repo.FullName()).Str("ref", temp).
			Msg("failed to delete scratch ref")
	}
}
