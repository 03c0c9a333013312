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
// of that name. It returns the published commit and its tree. A conflict
// merging spec.Heads[i] is a *queue.ConflictError with Index i.
//
// With spec.KeepTemp the scratch ref is a lane kept between builds: it is
// moved to From only when spec.TempAt says it is elsewhere (and again if
// the first merge shows it was not at From after all), and never deleted.
// Otherwise it is created for this build and deleted in every case, even
// when ctx was cancelled. An empty spec.Name (only with KeepTemp) is a
// probe: the heads are merged on the lane and nothing is published.
//
// spec.Publishing is called with the commit before it is published.
//
// The branches of spec.Delete are deleted in the request that publishes
// Name (GraphQL updateRefs); if GitHub refuses that request, Name is
// published alone (REST) and none is deleted (Built.Deleted is empty).
func (c *Client) BuildBranch(ctx context.Context, repo queue.Repo, spec queue.BranchSpec) (queue.Built, error) {
	what := fmt.Sprintf("build branch %s of %s", spec.Name, repo.FullName())
	probe := spec.Name == ""
	if spec.From == "" || spec.Temp == "" || probe && !spec.KeepTemp {
		return queue.Built{}, fmt.Errorf("failed to %s: incomplete spec (from %q, temp %q, name %q)", what, spec.From, spec.Temp, spec.Name)
	}
	if spec.Temp == spec.Name {
		return queue.Built{}, fmt.Errorf("failed to %s: scratch ref equals the branch name", what)
	}
	check := []error{checkPathText("branch", spec.Temp)}
	if !probe {
		check = append(check, checkPathText("branch", spec.Name))
	}
	for _, d := range spec.Delete {
		check = append(check, checkPathText("branch", d))
	}
	if err := errors.Join(check...); err != nil {
		return queue.Built{}, fmt.Errorf("failed to %s: %w", what, err)
	}
	if c.git != nil { // WithGitBuilds: gitbuild.go
		return c.git.build(ctx, c, repo, spec, what)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return queue.Built{}, fmt.Errorf("failed to %s: %w", what, err)
	}
	// The whole build, the scratch ref's deletion included, is the test
	// run's: it waits in the first class.
	ctx = WithWriteClass(ctx, ClassMerge)
	if !spec.KeepTemp {
		// Deferred before creating: a create that failed with a 5xx may
		// still have created the ref.
		defer c.deleteScratch(ctx, gh, repo, spec.Temp)
	}
	// The lane is trusted to be at From only until a merge shows where it
	// is: the first merge commit's first parent, or a "contained" answer
	// (204), which cannot be checked and so is not trusted.
	verified := !spec.KeepTemp || spec.TempAt != spec.From
	point := setRef // a scratch ref of this build: created
	if spec.KeepTemp {
		point = moveRef // a lane: it exists but on a queue's first build
	}
	if verified {
		if err := point(ctx, gh, repo, spec.Temp, spec.From); err != nil {
			return queue.Built{}, c.fail(repo, fmt.Sprintf("%s: point scratch ref %s at %s", what, spec.Temp, spec.From), err)
		}
	}
	// The scratch ref exists on GitHub and nothing durable names it.
	crashpoint.Hit(crashpoint.ScratchRefCreated)
	sha, tree := spec.From, ""
	for i := 0; i < len(spec.Heads); i++ {
		head := spec.Heads[i]
		merged, err := c.mergeInto(ctx, gh, repo, spec.Temp, head)
		if err != nil {
			if statusOf(err) == http.StatusConflict && verified {
				return queue.Built{}, fmt.Errorf("failed to %s: merging #%d: %w", what, head.PRNumber, &queue.ConflictError{Index: i, SHA: head.SHA})
			}
			if statusOf(err) != http.StatusConflict {
				return queue.Built{}, c.fail(repo, fmt.Sprintf("%s: merge #%d (%s)", what, head.PRNumber, head.SHA), err)
			}
		}
		if !verified {
			verified = true
			if err != nil || merged == nil || len(merged.Parents) == 0 || merged.Parents[0].GetSHA() != spec.From {
				// The lane was not where we left it (moved by hand, or by
				// a build whose outcome was lost), or cannot be told:
				// start again from From.
				zerolog.Ctx(ctx).Info().Str("ref", spec.Temp).Msg("scratch lane not where it was left; moving it")
				if err := moveRef(ctx, gh, repo, spec.Temp, spec.From); err != nil {
					return queue.Built{}, c.fail(repo, fmt.Sprintf("%s: point scratch ref %s at %s", what, spec.Temp, spec.From), err)
				}
				i = -1
				continue
			}
		}
		if merged == nil { // already contained: the scratch did not move
			continue
		}
		sha, tree = merged.GetSHA(), merged.GetCommit().GetTree().GetSHA()
	}
	c.trees.put(repoKey(repo), sha, tree)
	built := queue.Built{SHA: sha, Tree: tree}
	if probe {
		return built, nil
	}
	if spec.Publishing != nil {
		if err := spec.Publishing(ctx, sha); err != nil {
			return queue.Built{}, fmt.Errorf("failed to %s: record %s before publishing: %w", what, sha, err)
		}
	}
	if len(spec.Delete) > 0 {
		err := c.updateRefs(ctx, gh, repo, append([]refUpdate{{Name: spec.Name, After: sha, Force: true}}, deletions(spec.Delete)...))
		if err == nil {
			built.Deleted = append([]string(nil), spec.Delete...)
			return built, nil
		}
		zerolog.Ctx(ctx).Info().Err(err).Str("branch", spec.Name).Msg("publishing with the clean-up refused; publishing alone")
	}
	if err := setRef(ctx, gh, repo, spec.Name, sha); err != nil {
		return queue.Built{}, c.fail(repo, fmt.Sprintf("%s: publish at %s", what, sha), err)
	}
	return built, nil
}

// mergeInto merges head into branch (POST /merges) and returns the merge
// commit, or nil when branch already contains head.
func (c *Client) mergeInto(ctx context.Context, gh *github.Client, repo queue.Repo, branch string, head queue.MergeHead) (*github.RepositoryCommit, error) {
	p := escapedRepo(repo)
	mr := &github.RepositoryMergeRequest{Base: github.String(branch), Head: github.String(head.SHA)}
	if head.Message != "" {
		mr.CommitMessage = github.String(head.Message)
	}
	rc, res, err := gh.Repositories.Merge(ctx, p.owner, p.name, mr)
	if err != nil {
		return nil, err
	}
	if res != nil && res.StatusCode == http.StatusNoContent || rc == nil || rc.GetSHA() == "" {
		return nil, nil
	}
	return rc, nil
}

// moveRef force-moves refs/heads/branch to sha, or creates it there when it
// does not exist: one write for a ref that exists (a queue's lane, kept
// between builds), where setRef would first be refused a create.
func moveRef(ctx context.Context, gh *github.Client, repo queue.Repo, branch, sha string) error {
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(sha)}}
	p := escapedRepo(repo)
	_, _, err := gh.Git.UpdateRef(ctx, p.owner, p.name, ref, true)
	if err == nil || !refMissing(err) {
		return err
	}
	if _, _, err := gh.Git.CreateRef(ctx, p.owner, p.name, ref); err != nil {
		return fmt.Errorf("ref missing and creating it failed: %w", err)
	}
	return nil
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
