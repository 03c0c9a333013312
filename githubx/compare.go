package githubx

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// maxCompareFiles is how many files GitHub's compare API lists at most.
const maxCompareFiles = 300

var _ queue.FileDiffer = (*Client)(nil)

// DiffFiles lists the files changed from the merge base of base and head
// to head, with their blob SHA at head ("" if removed), using the compare
// API. complete is false when GitHub's 300-file cap may have cut the list.
func (c *Client) DiffFiles(ctx context.Context, repo queue.Repo, base, head string) (map[string]string, bool, error) {
	what := fmt.Sprintf("compare %s...%s in %s", base, head, repo.FullName())
	if err := errors.Join(checkPathText("commit", base), checkPathText("commit", head)); err != nil {
		return nil, false, fmt.Errorf("failed to %s: %w", what, err)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return nil, false, fmt.Errorf("failed to %s: %w", what, err)
	}
	p := escapedRepo(repo)
	cmp, _, err := gh.Repositories.CompareCommits(ctx, p.owner, p.name, base, head, &github.ListOptions{PerPage: 1})
	if err != nil {
		return nil, false, c.fail(repo, what, err)
	}
	out := make(map[string]string, len(cmp.Files))
	for _, f := range cmp.Files {
		blob := f.GetSHA()
		if f.GetStatus() == "removed" {
			blob = ""
		}
		out[f.GetFilename()] = blob
		if prev := f.GetPreviousFilename(); prev != "" {
			out[prev] = "" // a rename removes the old path
		}
	}
	return out, len(cmp.Files) < maxCompareFiles, nil
}
