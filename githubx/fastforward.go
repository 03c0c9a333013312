package githubx

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

var _ queue.FastForwarder = (*Client)(nil)

// FirstParents reads up to n commits of sha's first-parent chain, sha
// first (one GET /git/commits per commit; reads, not content-creating).
func (c *Client) FirstParents(ctx context.Context, repo queue.Repo, sha string, n int) ([]queue.ChainCommit, error) {
	what := fmt.Sprintf("read the first-parent chain of %s in %s", sha, repo.FullName())
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("failed to %s: %w", what, err)
	}
	p := escapedRepo(repo)
	var out []queue.ChainCommit
	for at := sha; at != "" && len(out) < n; {
		esc, err := segment("commit", at)
		if err != nil {
			return nil, fmt.Errorf("failed to %s: %w", what, err)
		}
		commit, _, err := gh.Git.GetCommit(ctx, p.owner, p.name, esc)
		if err != nil {
			return nil, c.fail(repo, what, err)
		}
		cc := queue.ChainCommit{SHA: at}
		for _, parent := range commit.Parents {
			cc.Parents = append(cc.Parents, parent.GetSHA())
		}
		if tree := commit.GetTree().GetSHA(); tree != "" {
			c.trees.put(repoKey(repo), at, tree)
		}
		out = append(out, cc)
		at = ""
		if len(cc.Parents) > 0 {
			at = cc.Parents[0]
		}
	}
	return out, nil
}

// FastForward moves refs/heads/branch to `to`: with git builds by a git
// push without force (gitbuild_fastforward.go); else with one non-forced
// PATCH /git/refs (GitHub refuses an update that is not a fast-forward
// with 422 "Update is not a fast forward", and a protected branch's with
// "Protected branch update failed"). GitHub's PATCH cannot check that
// the branch is still at from: a branch moved meanwhile to a commit that
// `to` contains is moved on, which the caller reads back (BranchHead).
func (c *Client) FastForward(ctx context.Context, repo queue.Repo, branch, from, to string) error {
	if c.git != nil { // WithGitBuilds: a git push, free of API requests
		return c.git.fastForward(ctx, c, repo, branch, from, to)
	}
	what := fmt.Sprintf("fast-forward %s of %s from %s to %s", branch, repo.FullName(), from, to)
	if err := checkPathText("commit", to); err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	p := escapedRepo(repo)
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(to)}}
	if _, _, err := gh.Git.UpdateRef(ctx, p.owner, p.name, ref, false); err != nil {
		return c.fail(repo, what, classifyFastForward(err))
	}
	return nil
}

// classifyFastForward maps a refused non-forced ref update: not a
// fast-forward (422) is queue.ErrNotFastForward; another 4xx (branch
// protection, 409, a missing ref) a *queue.RejectedError; the rest as
// wrap does.
func classifyFastForward(err error) error {
	status, msg := statusOf(err), messageOf(err)
	switch {
	case isTransient(err):
		return err
	case status == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(msg), "not a fast forward"):
		return fmt.Errorf("%w: %w", queue.ErrNotFastForward, err)
	case status >= 400 && status < 500:
		if msg == "" {
			msg = http.StatusText(status)
		}
		return &queue.RejectedError{Status: status, Message: msg}
	}
	return err
}
