package githubx

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-github/v66/github"
	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

var _ queue.BranchBatchDeleter = (*Client)(nil)

// zeroOID stands for "no ref" in GitHub's updateRefs.
const zeroOID = "0000000000000000000000000000000000000000"

// maxRefUpdates bounds one updateRefs request.
const maxRefUpdates = 100

// refUpdate is one change of an updateRefs mutation on refs/heads/<Name>:
// to After (zeroOID deletes it), from Before if set, non-fast-forward if
// Force.
type refUpdate struct {
	Name   string
	After  string
	Before string
	Force  bool
}

func deletions(names []string) []refUpdate {
	out := make([]refUpdate, 0, len(names))
	for _, n := range names {
		out = append(out, refUpdate{Name: n, After: zeroOID})
	}
	return out
}

const updateRefsMutation = `mutation($input: UpdateRefsInput!) { updateRefs(input: $input) { clientMutationId } }`

// updateRefs applies updates atomically in one request (GraphQL
// updateRefs): all of them, or none when GitHub refuses one.
func (c *Client) updateRefs(ctx context.Context, gh *github.Client, repo queue.Repo, updates []refUpdate) error {
	id, err := c.repoNodeID(ctx, gh, repo)
	if err != nil {
		return fmt.Errorf("failed to read the repository's node id: %w", err)
	}
	ups := make([]map[string]any, 0, len(updates))
	for _, u := range updates {
		m := map[string]any{"name": "refs/heads/" + u.Name, "afterOid": u.After}
		if u.Before != "" {
			m["beforeOid"] = u.Before
		}
		if u.Force {
			m["force"] = true
		}
		ups = append(ups, m)
	}
	return c.graphQL(ctx, gh, updateRefsMutation, map[string]any{"input": map[string]any{"repositoryId": id, "refUpdates": ups}}, nil)
}

// DeleteBranches deletes branches, many per request (GraphQL updateRefs,
// up to maxRefUpdates at a time); a missing branch is not an error. When
// GitHub refuses a batch (one branch is already gone, or the server has no
// updateRefs), its branches are deleted one by one (REST), so the result
// is the same at a higher cost. It returns the branches it deleted.
func (c *Client) DeleteBranches(ctx context.Context, repo queue.Repo, names []string) ([]string, error) {
	what := fmt.Sprintf("delete %d branches of %s", len(names), repo.FullName())
	for _, n := range names {
		if err := checkPathText("branch", n); err != nil {
			return nil, fmt.Errorf("failed to %s: %w", what, err)
		}
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("failed to %s: %w", what, err)
	}
	ctx = WithWriteClass(ctx, ClassSurface) // clean-up: nothing waits for it
	var done []string
	for len(names) > 0 {
		batch := names[:min(len(names), maxRefUpdates)]
		names = names[len(batch):]
		err := c.updateRefs(ctx, gh, repo, deletions(batch))
		if err == nil {
			done = append(done, batch...)
			continue
		}
		var ge *GraphQLError
		if !errors.As(err, &ge) {
			return done, c.fail(repo, what, err)
		}
		zerolog.Ctx(ctx).Debug().Err(err).Int("branches", len(batch)).Msg("batch deletion refused; deleting one by one")
		for _, n := range batch {
			if err := deleteRef(ctx, gh, repo, n); err != nil {
				return done, c.fail(repo, what, err)
			}
			done = append(done, n)
		}
	}
	return done, nil
}
