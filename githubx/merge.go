package githubx

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// mergeMethods maps the queue's methods to GitHub's merge_method.
var mergeMethods = map[queue.MergeMethod]string{
	queue.MergeCommit: "merge",
	queue.Squash:      "squash",
	queue.Rebase:      "rebase",
}

// MergePullRequest merges PR number only if its head is still req.SHA and
// returns the commit GitHub created on the target branch. Failures are
// classified (M1, M2): "Base branch was modified" is queue.ErrBaseModified
// (retry later); a moved head (409) is queue.ErrHeadMoved; a missing PR is
// queue.ErrPRNotFound; other 403/405/422 refusals are *queue.RejectedError
// with GitHub's message; 5xx, network errors, timeouts and rate limits are
// queue.ErrTransient (the PR may or may not be merged: read it back). The
// request is never retried here.
func (c *Client) MergePullRequest(ctx context.Context, repo queue.Repo, number int, req queue.MergeRequest) (string, error) {
	what := fmt.Sprintf("merge pull request #%d of %s", number, repo.FullName())
	method, ok := mergeMethods[req.Method]
	if !ok {
		return "", fmt.Errorf("failed to %s: unknown merge method %q", what, req.Method)
	}
	if req.SHA == "" {
		return "", fmt.Errorf("failed to %s: no head SHA given", what)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("failed to %s: %w", what, err)
	}
	ctx = WithWriteClass(ctx, ClassMerge)
	p := escapedRepo(repo)
	res, _, err := gh.PullRequests.Merge(ctx, p.owner, p.name, number, "", &github.PullRequestOptions{
		CommitTitle: req.Title,
		SHA:         req.SHA,
		MergeMethod: method,
	})
	if err != nil {
		c.forget(repo, err)
		return "", classifyMerge(what, err)
	}
	if res.GetMerged() && res.GetSHA() == "" {
		return "", fmt.Errorf("failed to %s: %w: GitHub reported a merge without a commit SHA", what, queue.ErrTransient)
	}
	if !res.GetMerged() {
		msg := res.GetMessage()
		if msg == "" {
			msg = "GitHub did not report the pull request as merged"
		}
		return "", fmt.Errorf("failed to %s: %w", what, &queue.RejectedError{Status: http.StatusOK, Message: msg})
	}
	return res.GetSHA(), nil
}
