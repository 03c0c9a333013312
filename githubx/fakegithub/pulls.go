package fakegithub

import (
	"fmt"
	"sort"
	"time"

	"github.com/google/go-github/v66/github"
)

// pullRequest is the fake's record of a PR (which is also issue #number).
type pullRequest struct {
	number         int
	id             int64
	title, body    string
	author         string
	headRef        string
	headRepo       string // "owner/name" of the fork the head is reported in; "" = this repository
	baseRef        string
	headSHA        string // follows the head branch while open
	baseSHA        string // the base tip when closed
	state          string // open, closed
	draft          bool
	merged         bool
	mergeCommitSHA string
	mergedBy       string
	labels         []string
	createdAt      time.Time
	updatedAt      time.Time
	closedAt       time.Time
	mergedAt       time.Time
	unknownGets    int // GETs left that answer mergeable: null
}

// prNumbers lists PR numbers in ascending order. Caller holds r.mu.
func (r *repo) prNumbers() []int {
	ns := make([]int, 0, len(r.prs))
	for n := range r.prs {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	return ns
}

// pr returns PR number n or a 404. Caller holds r.mu.
func (r *repo) pr(n int) (*pullRequest, error) {
	pr, ok := r.prs[n]
	if !ok {
		return nil, errNotFound("Not Found")
	}
	return pr, nil
}

// mergeability computes mergeable and mergeable_state for an open PR with
// a real merge-tree of its head onto the base tip: "dirty" on conflict,
// "draft", "behind" when the base moved since the head forked, else
// "clean". Merged PRs report null/"unknown". Caller holds r.mu.
func (r *repo) mergeability(pr *pullRequest) (*bool, string, error) {
	if pr.merged {
		return nil, "unknown", nil
	}
	base, ok, err := r.branchSHA(pr.baseRef)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "unknown", nil
	}
	key := base + ".." + pr.headSHA
	out, cached := r.mergeCache[key]
	if !cached {
		_, conflict, err := r.git.mergeTree(base, pr.headSHA)
		if err != nil {
			return nil, "", err
		}
		contained, err := r.git.isAncestor(base, pr.headSHA)
		if err != nil {
			return nil, "", err
		}
		out = mergeOutcome{conflict: conflict, behind: !contained}
		r.mergeCache[key] = out
	}
	switch {
	case out.conflict:
		return github.Bool(false), "dirty", nil
	case pr.draft:
		return github.Bool(true), "draft", nil
	case r.missingRequired(pr) != "":
		return github.Bool(true), "blocked", nil
	case out.behind:
		return github.Bool(true), "behind", nil
	default:
		return github.Bool(true), "clean", nil
	}
}

// prJSON renders a PR. mergeable/state are included when state != "".
// Caller holds r.mu.
func (r *repo) prJSON(pr *pullRequest, mergeable *bool, mergeableState string) *github.PullRequest {
	baseSHA := pr.baseSHA
	if pr.state == "open" {
		if sha, ok, err := r.branchSHA(pr.baseRef); err == nil && ok {
			baseSHA = sha
		}
	}
	url := fmt.Sprintf("%s/pulls/%d", r.apiURL(), pr.number)
	repoJSON := r.apiRepo()
	p := &github.PullRequest{
		ID:                github.Int64(pr.id),
		NodeID:            github.String(fmt.Sprintf("PR_%d", pr.id)),
		Number:            github.Int(pr.number),
		State:             github.String(pr.state),
		Title:             github.String(pr.title),
		Body:              github.String(pr.body),
		User:              r.s.user(pr.author),
		Draft:             github.Bool(pr.draft),
		Merged:            github.Bool(pr.merged),
		Locked:            github.Bool(false),
		CreatedAt:         &github.Timestamp{Time: pr.createdAt},
		UpdatedAt:         &github.Timestamp{Time: pr.updatedAt},
		HTMLURL:           github.String(fmt.Sprintf("%s/pull/%d", r.htmlURL(), pr.number)),
		URL:               github.String(url),
		IssueURL:          github.String(fmt.Sprintf("%s/issues/%d", r.apiURL(), pr.number)),
		CommitsURL:        github.String(url + "/commits"),
		StatusesURL:       github.String(r.apiURL() + "/statuses/" + pr.headSHA),
		AuthorAssociation: github.String("CONTRIBUTOR"),
		Head: &github.PullRequestBranch{
			Label: github.String(r.owner + ":" + pr.headRef),
			Ref:   github.String(pr.headRef),
			SHA:   github.String(pr.headSHA),
			Repo:  repoJSON,
			User:  r.s.user(r.owner),
		},
		Base: &github.PullRequestBranch{
			Label: github.String(r.owner + ":" + pr.baseRef),
			Ref:   github.String(pr.baseRef),
			SHA:   github.String(baseSHA),
			Repo:  repoJSON,
			User:  r.s.user(r.owner),
		},
		Labels: []*github.Label{},
	}
	if pr.headRepo != "" {
		fork := r.forkRepo(pr.headRepo)
		p.Head.Repo, p.Head.User = fork, fork.Owner
		p.Head.Label = github.String(fork.GetOwner().GetLogin() + ":" + pr.headRef)
	}
	for _, l := range pr.labels {
		p.Labels = append(p.Labels, r.apiLabel(l))
	}
	if mergeableState != "" {
		p.Mergeable = mergeable
		p.MergeableState = github.String(mergeableState)
	}
	if !pr.closedAt.IsZero() {
		p.ClosedAt = &github.Timestamp{Time: pr.closedAt}
	}
	if pr.merged {
		p.MergedAt = &github.Timestamp{Time: pr.mergedAt}
		p.MergeCommitSHA = github.String(pr.mergeCommitSHA)
		p.MergedBy = r.s.user(pr.mergedBy)
	}
	return p
}

// prJSONFull renders a PR with its mergeability computed. Caller holds r.mu.
func (r *repo) prJSONFull(pr *pullRequest) (*github.PullRequest, error) {
	m, state, err := r.mergeability(pr)
	if err != nil {
		return nil, err
	}
	return r.prJSON(pr, m, state), nil
}

// issueJSON renders the PR as the issue it also is. Caller holds r.mu.
func (r *repo) issueJSON(pr *pullRequest) *github.Issue {
	iss := &github.Issue{
		ID:        github.Int64(pr.id),
		Number:    github.Int(pr.number),
		State:     github.String(pr.state),
		Title:     github.String(pr.title),
		Body:      github.String(pr.body),
		User:      r.s.user(pr.author),
		Labels:    []*github.Label{},
		CreatedAt: &github.Timestamp{Time: pr.createdAt},
		UpdatedAt: &github.Timestamp{Time: pr.updatedAt},
		URL:       github.String(fmt.Sprintf("%s/issues/%d", r.apiURL(), pr.number)),
		HTMLURL:   github.String(fmt.Sprintf("%s/pull/%d", r.htmlURL(), pr.number)),
		PullRequestLinks: &github.PullRequestLinks{
			URL:     github.String(fmt.Sprintf("%s/pulls/%d", r.apiURL(), pr.number)),
			HTMLURL: github.String(fmt.Sprintf("%s/pull/%d", r.htmlURL(), pr.number)),
		},
		Draft: github.Bool(pr.draft),
	}
	for _, l := range pr.labels {
		iss.Labels = append(iss.Labels, r.apiLabel(l))
	}
	if pr.merged {
		iss.PullRequestLinks.MergedAt = &github.Timestamp{Time: pr.mergedAt}
	}
	return iss
}
