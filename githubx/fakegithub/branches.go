package fakegithub

import (
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v66/github"
)

func handleGetRepo(c *reqCtx) { c.json(http.StatusOK, c.repo.apiRepo()) }

// branchNames lists branch names, sorted.
func (r *repo) branchNames() ([]string, error) {
	refs, err := r.git.refs("refs/heads/")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(refs))
	for ref := range refs {
		names = append(names, strings.TrimPrefix(ref, "refs/heads/"))
	}
	sort.Strings(names)
	return names, nil
}

func handleListBranches(c *reqCtx) {
	r := c.repo
	refs, err := r.git.refs("refs/heads/")
	if err != nil {
		c.fail(err)
		return
	}
	names, err := r.branchNames()
	if err != nil {
		c.fail(err)
		return
	}
	r.mu.Lock()
	out := make([]*github.Branch, 0, len(names))
	for _, n := range names {
		sha := refs["refs/heads/"+n]
		_, protected := r.protection[n]
		out = append(out, &github.Branch{
			Name:      github.String(n),
			Commit:    &github.RepositoryCommit{SHA: github.String(sha), URL: github.String(r.apiURL() + "/commits/" + sha)},
			Protected: github.Bool(protected),
		})
	}
	r.mu.Unlock()
	c.json(http.StatusOK, page(c, out))
}

// branchOrFail resolves the {branch} parameter; on a miss it answers 404
// "Branch not found".
func (c *reqCtx) branchOrFail() (string, string, bool) {
	name := c.params["branch"]
	sha, ok, err := c.repo.branchSHA(name)
	if err != nil {
		c.fail(err)
		return "", "", false
	}
	if !ok {
		c.error(http.StatusNotFound, "Branch not found")
		return "", "", false
	}
	return name, sha, true
}

func handleGetBranch(c *reqCtx) {
	name, sha, ok := c.branchOrFail()
	if !ok {
		return
	}
	rc, err := c.repo.repositoryCommit(sha)
	if err != nil {
		c.fail(err)
		return
	}
	c.repo.mu.Lock()
	_, protected := c.repo.protection[name]
	c.repo.mu.Unlock()
	c.json(http.StatusOK, &github.Branch{Name: github.String(name), Commit: rc, Protected: github.Bool(protected)})
}

// requiredChecks renders a branch's required status checks; ok is false if
// the branch is not protected.
func (r *repo) requiredChecks(branch string) (*github.RequiredStatusChecks, bool) {
	r.mu.Lock()
	contexts, ok := r.protection[branch]
	r.mu.Unlock()
	if !ok {
		return nil, false
	}
	ctxs := append([]string{}, contexts...)
	checks := make([]*github.RequiredStatusCheck, 0, len(ctxs))
	for _, x := range ctxs {
		checks = append(checks, &github.RequiredStatusCheck{Context: x})
	}
	url := r.apiURL() + "/branches/" + branch + "/protection/required_status_checks"
	return &github.RequiredStatusChecks{
		Strict:      false,
		Contexts:    &ctxs,
		Checks:      &checks,
		URL:         github.String(url),
		ContextsURL: github.String(url + "/contexts"),
	}, true
}

func handleGetProtection(c *reqCtx) {
	name, _, ok := c.branchOrFail()
	if !ok {
		return
	}
	rsc, ok := c.repo.requiredChecks(name)
	if !ok {
		c.error(http.StatusNotFound, "Branch not protected")
		return
	}
	c.json(http.StatusOK, &github.Protection{
		URL:                  github.String(c.repo.apiURL() + "/branches/" + name + "/protection"),
		RequiredStatusChecks: rsc,
	})
}

func handleGetRequiredChecks(c *reqCtx) {
	name, _, ok := c.branchOrFail()
	if !ok {
		return
	}
	rsc, ok := c.repo.requiredChecks(name)
	if !ok {
		c.error(http.StatusNotFound, "Branch not protected")
		return
	}
	c.json(http.StatusOK, rsc)
}

func handleGetPermission(c *reqCtx) {
	login := c.params["user"]
	c.repo.mu.Lock()
	perm := c.repo.permission(login)
	c.repo.mu.Unlock()
	role := perm
	if perm == "none" {
		role = ""
	}
	c.json(http.StatusOK, &github.RepositoryPermissionLevel{
		Permission: github.String(legacyPermission(perm)),
		RoleName:   github.String(role),
		User:       c.s.user(login),
	})
}

// legacyPermission maps roles to the "permission" field, which GitHub only
// reports as admin, write, read or none (maintain→write, triage→read).
func legacyPermission(p string) string {
	switch p {
	case "maintain":
		return "write"
	case "triage":
		return "read"
	}
	return p
}
