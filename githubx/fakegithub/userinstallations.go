package fakegithub

import (
	"net/http"
	"sort"
	"strconv"

	"github.com/google/go-github/v66/github"
)

// The App's installations and repositories as a signed-in user sees them
// (a user access token from the OAuth web flow, or a personal one):
//
//	GET /user/installations
//	GET /user/installations/{id}/repositories
//
// As on GitHub, they list only what the user has explicit permission to
// (read or more: the owner, or SetPermission other than "none"), the
// repositories with the user's permissions, paginated (page, per_page);
// the App's own tokens are refused.

// userRepos returns, sorted by full name, the repositories login may read
// with their rendering carrying login's permissions.
func (s *Server) userRepos(login string) []*github.Repository {
	s.mu.Lock()
	repos := make([]*repo, 0, len(s.repos))
	for _, r := range s.repos {
		repos = append(repos, r)
	}
	s.mu.Unlock()
	sort.Slice(repos, func(i, j int) bool { return repos[i].fullName() < repos[j].fullName() })
	var out []*github.Repository
	for _, r := range repos {
		r.mu.Lock()
		perm := r.permission(login)
		r.mu.Unlock()
		if perm == "none" {
			continue
		}
		api := r.apiRepo()
		api.Permissions = userPermissions(perm)
		out = append(out, api)
	}
	return out
}

// userPermissions is the "permissions" object GitHub gives a repository
// for a user with role perm (admin, maintain, write, triage, read).
func userPermissions(perm string) map[string]bool {
	rank := map[string]int{"read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}[perm]
	return map[string]bool{"pull": rank >= 1, "triage": rank >= 2, "push": rank >= 3, "maintain": rank >= 4, "admin": rank >= 5}
}

// userOnly answers 403 when the App itself (an installation token) asks.
func (c *reqCtx) userOnly() bool {
	if c.actor == c.s.botLogin() {
		c.error(http.StatusForbidden, "You must authenticate with an access token authorized to a GitHub App in order to list installations")
		return false
	}
	return true
}

func (s *Server) handleUserInstallations(c *reqCtx) {
	if !c.userOnly() {
		return
	}
	var insts []*github.Installation
	if len(s.userRepos(c.actor)) > 0 {
		insts = append(insts, s.apiInstallation(""))
	}
	c.json(http.StatusOK, map[string]any{"total_count": len(insts), "installations": page(c, insts)})
}

func (s *Server) handleUserInstallationRepos(c *reqCtx) {
	if !c.userOnly() {
		return
	}
	if c.params["id"] != strconv.FormatInt(s.installationID, 10) {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	all := s.userRepos(c.actor)
	if len(all) == 0 { // no access to any of its repositories: not the user's installation
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	c.json(http.StatusOK, map[string]any{"total_count": len(all), "repository_selection": "all", "repositories": page(c, all)})
}
