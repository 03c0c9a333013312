package fakegithub

import "net/http"

// IssueUserToken mints a personal access token ("ghp_…") acting as login,
// valid until Close. Requests made with it are attributed to that user:
// pull requests it opens, comments, labels and ref updates are theirs, and
// their webhooks name them as sender, so the merge queue treats them as
// that person's (its own actions are those of the App's bot). The fake
// checks no scope or permission for it; App routes (JWT) refuse it, and
// check runs, which only Apps may write, answer 403.
func (s *Server) IssueUserToken(login string) string {
	tok := randomToken("ghp_")
	s.mu.Lock()
	s.userTokens[tok] = login
	s.mu.Unlock()
	return tok
}

// appOnly answers 403 unless the App itself acts (GitHub lets only Apps
// write check runs).
func (c *reqCtx) appOnly() bool {
	if c.actor != c.s.botLogin() {
		c.error(http.StatusForbidden, "You must authenticate via a GitHub App.")
		return false
	}
	return true
}
