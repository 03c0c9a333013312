package githubx

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// fastForward moves refs/heads/branch to `to` with a git push without
// force from the repository's clone (no API request, nothing
// content-creating): git refuses an update that is not a fast-forward of
// what GitHub advertises ("non-fast-forward", "fetch first": ErrNotFastForward);
// a branch protection's refusal ("protected branch hook declined") is a
// *queue.RejectedError. The push's compare-and-swap is on the head GitHub
// advertised when it began.
func (b *gitBuilder) fastForward(ctx context.Context, c *Client, repo queue.Repo, branch, from, to string) error {
	what := fmt.Sprintf("fast-forward %s of %s from %s to %s", branch, repo.FullName(), from, to)
	for _, sha := range []string{from, to} {
		if !isObjectID(sha) {
			return fmt.Errorf("failed to %s: %q is not a full commit SHA", what, sha)
		}
	}
	cl, err := b.clone(ctx, repo)
	if err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	release := cl.use()
	defer release()
	remote, auth := b.remoteURL(repo), b.tokens.auth(c, repo)
	if err := cl.fetch(ctx, remote, auth, []string{from, to}); err != nil {
		return fmt.Errorf("failed to %s: fetch: %w", what, err)
	}
	token, err := auth.get(ctx)
	if err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	pctx, done, err := b.guardPush(ctx)
	if err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	defer done()
	out, err := runGit(pctx, gitRun{dir: cl.path, timeout: cl.timeout, token: token},
		"push", "--porcelain", "--no-verify", remote, to+":refs/heads/"+branch)
	var ee *gitExitError
	if errors.As(err, &ee) {
		out = ee.stdout
	} else if err != nil {
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	for _, st := range parsePushPorcelain(out) {
		if st.Flag != '!' {
			continue
		}
		summary := strings.ToLower(st.Summary)
		if strings.Contains(summary, "non-fast-forward") || strings.Contains(summary, "fetch first") || strings.Contains(summary, "stale info") {
			return fmt.Errorf("failed to %s: %w: %s", what, queue.ErrNotFastForward, st.Summary)
		}
		return fmt.Errorf("failed to %s: %w", what, &queue.RejectedError{Status: 422, Message: st.Summary})
	}
	if err != nil {
		err = classifyTransport("push "+branch, err)
		if errors.Is(err, errGitUnauthorized) {
			auth.drop(token)
		}
		return fmt.Errorf("failed to %s: %w", what, err)
	}
	return nil
}
