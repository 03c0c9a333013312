package githubx

import (
	"context"
	"fmt"
	"sort"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/githubx/ghfacts"
	"github.com/mergequeue/mq/queue"
)

// perPage is the page size of list calls (GitHub's maximum).
const perPage = 100

// Checks returns every commit status and check run on sha, one result per
// (kind, name): for statuses the newest per context wins, for check runs the
// newest run (highest ID) per name. Each becomes a result on sha as
// ghfacts.Status and ghfacts.CheckRun say, the same as from webhooks:
// states normalised (M8), URLs kept only if textsafe.CIURL accepts them.
// Results are sorted by kind, then name.
func (c *Client) Checks(ctx context.Context, repo queue.Repo, sha string) ([]queue.CheckResult, error) {
	if err := checkPathText("commit", sha); err != nil {
		return nil, fmt.Errorf("failed to read checks of %s in %s: %w", sha, repo.FullName(), err)
	}
	gh, err := c.InstallationClient(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("failed to read checks of %s in %s: %w", sha, repo.FullName(), err)
	}
	statuses, err := c.listStatuses(ctx, gh, repo, sha)
	if err != nil {
		return nil, err
	}
	runs, err := c.listCheckRuns(ctx, gh, repo, sha)
	if err != nil {
		return nil, err
	}
	out := make([]queue.CheckResult, 0, len(statuses)+len(runs))
	for _, s := range statuses {
		out = append(out, ghfacts.Status(sha, s))
	}
	for _, r := range runs {
		res := ghfacts.CheckRun(r)
		res.SHA = sha // the commit asked about, whose runs GitHub listed
		out = append(out, res)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind == queue.KindStatus
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// listStatuses pages through GET commits/{sha}/statuses (newest first) and
// keeps the newest status per context.
func (c *Client) listStatuses(ctx context.Context, gh *github.Client, repo queue.Repo, sha string) (map[string]*github.RepoStatus, error) {
	newest := map[string]*github.RepoStatus{}
	opts := &github.ListOptions{PerPage: perPage}
	p := escapedRepo(repo)
	for {
		page, resp, err := gh.Repositories.ListStatuses(ctx, p.owner, p.name, sha, opts)
		if err != nil {
			return nil, c.fail(repo, fmt.Sprintf("list statuses of %s in %s (page %d)", sha, repo.FullName(), max(opts.Page, 1)), err)
		}
		for _, s := range page {
			name := s.GetContext()
			if old, ok := newest[name]; !ok || ghfacts.StatusTime(s).After(ghfacts.StatusTime(old)) {
				newest[name] = s
			}
		}
		if resp.NextPage == 0 {
			return newest, nil
		}
		opts.Page = resp.NextPage
	}
}

// listCheckRuns pages through GET commits/{sha}/check-runs and keeps the
// newest run per name.
func (c *Client) listCheckRuns(ctx context.Context, gh *github.Client, repo queue.Repo, sha string) (map[string]*github.CheckRun, error) {
	newest := map[string]*github.CheckRun{}
	opts := &github.ListCheckRunsOptions{Filter: github.String("latest"), ListOptions: github.ListOptions{PerPage: perPage}}
	p := escapedRepo(repo)
	for {
		page, resp, err := gh.Checks.ListCheckRunsForRef(ctx, p.owner, p.name, sha, opts)
		if err != nil {
			return nil, c.fail(repo, fmt.Sprintf("list check runs of %s in %s (page %d)", sha, repo.FullName(), max(opts.Page, 1)), err)
		}
		for _, r := range page.CheckRuns {
			name := r.GetName()
			if old, ok := newest[name]; !ok || r.GetID() > old.GetID() {
				newest[name] = r
			}
		}
		if resp.NextPage == 0 {
			return newest, nil
		}
		opts.Page = resp.NextPage
	}
}
