package githubx

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/textsafe"
)

// perPage is the page size of list calls (GitHub's maximum).
const perPage = 100

// Checks returns every commit status and check run on sha, one result per
// (kind, name): for statuses the newest per context wins, for check runs the
// newest run (highest ID) per name. States are normalised (M8): statuses
// success → success, pending → pending, failure/error → failure; check runs
// not completed → pending, concluded success/neutral/skipped → success,
// any other conclusion → failure. Results are sorted by kind, then name.
// URLs (a status's target_url, a check run's details_url, else html_url)
// are kept only if textsafe.CIURL accepts them: CI code can set them.
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
		out = append(out, statusResult(sha, s))
	}
	for _, r := range runs {
		out = append(out, checkRunResult(sha, r))
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
			if old, ok := newest[name]; !ok || statusTime(s).After(statusTime(old)) {
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

func statusTime(s *github.RepoStatus) time.Time {
	if t := s.GetUpdatedAt(); !t.IsZero() {
		return t.Time
	}
	return s.GetCreatedAt().Time
}

func statusResult(sha string, s *github.RepoStatus) queue.CheckResult {
	raw := s.GetState()
	state := queue.CheckPending
	switch raw {
	case "success":
		state = queue.CheckSuccess
	case "failure", "error":
		state = queue.CheckFailure
	}
	return queue.CheckResult{
		SHA:       sha,
		Kind:      queue.KindStatus,
		Name:      s.GetContext(),
		State:     state,
		Raw:       raw,
		URL:       textsafe.CIURL(s.GetTargetURL()),
		UpdatedAt: statusTime(s).UTC(),
	}
}

func checkRunResult(sha string, r *github.CheckRun) queue.CheckResult {
	res := queue.CheckResult{
		SHA:   sha,
		Kind:  queue.KindCheckRun,
		Name:  r.GetName(),
		State: queue.CheckPending,
		Raw:   r.GetStatus(),
		URL:   textsafe.CIURL(r.GetDetailsURL()),
	}
	if res.URL == "" {
		res.URL = textsafe.CIURL(r.GetHTMLURL())
	}
	res.UpdatedAt = r.GetStartedAt().Time.UTC()
	if r.GetStatus() == "completed" {
		res.Raw = r.GetConclusion()
		res.UpdatedAt = r.GetCompletedAt().Time.UTC()
		switch res.Raw {
		case "success", "neutral", "skipped":
			res.State = queue.CheckSuccess
		default:
			res.State = queue.CheckFailure
		}
	}
	return res
}
