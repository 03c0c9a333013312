package fakegithub

import (
	"net/http"
	"strings"

	"github.com/google/go-github/v66/github"
)

// commitAuthor renders a git signature.
func commitAuthor(sig signature) *github.CommitAuthor {
	return &github.CommitAuthor{
		Name:  github.String(sig.Name),
		Email: github.String(sig.Email),
		Date:  &github.Timestamp{Time: sig.When},
	}
}

// gitCommit renders a commit as the Git Database API does.
func (r *repo) gitCommit(ci *commitInfo) *github.Commit {
	c := &github.Commit{
		SHA:       github.String(ci.SHA),
		NodeID:    github.String("C_" + ci.SHA),
		Author:    commitAuthor(ci.Author),
		Committer: commitAuthor(ci.Committer),
		Message:   github.String(strings.TrimRight(ci.Message, "\n")),
		Tree:      &github.Tree{SHA: github.String(ci.Tree)},
		URL:       github.String(r.apiURL() + "/git/commits/" + ci.SHA),
		HTMLURL:   github.String(r.htmlURL() + "/commit/" + ci.SHA),
	}
	for _, p := range ci.Parents {
		c.Parents = append(c.Parents, &github.Commit{
			SHA:     github.String(p),
			URL:     github.String(r.apiURL() + "/git/commits/" + p),
			HTMLURL: github.String(r.htmlURL() + "/commit/" + p),
		})
	}
	return c
}

// repositoryCommit renders a commit as GET /repos/{o}/{r}/commits/{ref}.
func (r *repo) repositoryCommit(sha string) (*github.RepositoryCommit, error) {
	ci, err := r.git.commit(sha)
	if err != nil {
		return nil, err
	}
	inner := r.gitCommit(ci)
	inner.SHA = nil
	inner.Parents = nil
	inner.URL = github.String(r.apiURL() + "/git/commits/" + sha)
	rc := &github.RepositoryCommit{
		SHA:     github.String(sha),
		NodeID:  github.String("C_" + sha),
		Commit:  inner,
		HTMLURL: github.String(r.htmlURL() + "/commit/" + sha),
		URL:     github.String(r.apiURL() + "/commits/" + sha),
	}
	for _, p := range ci.Parents {
		rc.Parents = append(rc.Parents, &github.Commit{
			SHA:     github.String(p),
			URL:     github.String(r.apiURL() + "/commits/" + p),
			HTMLURL: github.String(r.htmlURL() + "/commit/" + p),
		})
	}
	return rc, nil
}

// resolveOrFail resolves a commit-ish; on a miss it answers 422 "No commit
// found for SHA" (as GitHub does) and returns false.
func (c *reqCtx) resolveOrFail(rev string) (string, bool) {
	sha, ok, err := c.repo.git.resolveCommit(rev)
	if err != nil {
		c.fail(err)
		return "", false
	}
	if !ok {
		c.error(http.StatusUnprocessableEntity, "No commit found for SHA: "+rev)
		return "", false
	}
	return sha, true
}

func handleGetCommit(c *reqCtx) {
	sha, ok := c.resolveOrFail(c.params["ref"])
	if !ok {
		return
	}
	rc, err := c.repo.repositoryCommit(sha)
	if err != nil {
		c.fail(err)
		return
	}
	c.json(http.StatusOK, rc)
}

func handleGetGitCommit(c *reqCtx) {
	sha := c.params["sha"]
	if !isHex(sha) {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	full, ok, err := c.repo.git.resolveCommit(sha)
	if err != nil {
		c.fail(err)
		return
	}
	if !ok {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	ci, err := c.repo.git.commit(full)
	if err != nil {
		c.fail(err)
		return
	}
	c.json(http.StatusOK, c.repo.gitCommit(ci))
}

// handleCompare serves GET /compare/{base}...{head}.
func handleCompare(c *reqCtx) {
	baseRev, headRev, ok := strings.Cut(c.params["basehead"], "...")
	if !ok {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	stripOwner := func(s string) string {
		if _, after, found := strings.Cut(s, ":"); found {
			return after
		}
		return s
	}
	g := c.repo.git
	base, okB, err := g.resolveCommit(stripOwner(baseRev))
	if err != nil {
		c.fail(err)
		return
	}
	head, okH, err := g.resolveCommit(stripOwner(headRev))
	if err != nil {
		c.fail(err)
		return
	}
	if !okB || !okH {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	ahead, err := g.revList(base, head, false)
	if err != nil {
		c.fail(err)
		return
	}
	behind, err := g.revList(head, base, false)
	if err != nil {
		c.fail(err)
		return
	}
	status := "diverged"
	switch {
	case base == head || len(ahead) == 0 && len(behind) == 0:
		status = "identical"
	case len(behind) == 0:
		status = "ahead"
	case len(ahead) == 0:
		status = "behind"
	}
	cmp := &github.CommitsComparison{
		Status:       github.String(status),
		AheadBy:      github.Int(len(ahead)),
		BehindBy:     github.Int(len(behind)),
		TotalCommits: github.Int(len(ahead)),
		HTMLURL:      github.String(c.repo.htmlURL() + "/compare/" + c.params["basehead"]),
		Commits:      []*github.RepositoryCommit{},
	}
	if cmp.BaseCommit, err = c.repo.repositoryCommit(base); err != nil {
		c.fail(err)
		return
	}
	if mb, err := g.mergeBase(base, head); err != nil {
		c.fail(err)
		return
	} else if mb != "" {
		if cmp.MergeBaseCommit, err = c.repo.repositoryCommit(mb); err != nil {
			c.fail(err)
			return
		}
	}
	if mb := cmp.MergeBaseCommit.GetSHA(); mb != "" {
		// Like GitHub, the files are those changed from the merge base.
		if cmp.Files, err = g.diffFiles(mb, head); err != nil {
			c.fail(err)
			return
		}
	}
	if len(ahead) > 250 {
		ahead = ahead[:250]
	}
	for _, sha := range ahead {
		rc, err := c.repo.repositoryCommit(sha)
		if err != nil {
			c.fail(err)
			return
		}
		cmp.Commits = append(cmp.Commits, rc)
	}
	c.json(http.StatusOK, cmp)
}
