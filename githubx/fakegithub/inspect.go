package fakegithub

import (
	"strings"

	"github.com/google/go-github/v66/github"
)

// Inspection helpers for tests that check what the merge queue left on
// GitHub (crash and outage tests): they read the fake's ground truth
// directly, without going through the API, faults or call counts.

// LandedCommit is one commit of a branch's first-parent history.
type LandedCommit struct {
	SHA string
	// PR is the number of the pull request whose merge commit
	// (merge_commit_sha) this commit is; 0 if none (the initial commit, a
	// push, or an earlier commit of a rebase merge).
	PR int
}

// Landed lists the first-parent history of branch, oldest first, each
// commit with the pull request it merged.
func (s *Server) Landed(owner, name, branch string) ([]LandedCommit, error) {
	hist, err := s.MainHistory(owner, name, branch)
	if err != nil {
		return nil, err
	}
	r, err := s.repo(owner, name)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	byCommit := map[string]int{}
	for n, pr := range r.prs {
		if pr.merged {
			byCommit[pr.mergeCommitSHA] = n
		}
	}
	r.mu.Unlock()
	out := make([]LandedCommit, len(hist))
	for i, sha := range hist {
		out[len(hist)-1-i] = LandedCommit{SHA: sha, PR: byCommit[sha]}
	}
	return out, nil
}

// BranchesWithPrefix lists the branches whose name starts with prefix
// (e.g. "mq-temp/"), sorted.
func (s *Server) BranchesWithPrefix(owner, name, prefix string) []string {
	out := []string{}
	for _, b := range s.Branches(owner, name) {
		if strings.HasPrefix(b, prefix) {
			out = append(out, b)
		}
	}
	return out
}

// CheckRunsNamed lists the check runs called checkName on sha, oldest
// first, whichever app created them.
func (s *Server) CheckRunsNamed(owner, name, sha, checkName string) []*github.CheckRun {
	out := []*github.CheckRun{}
	for _, cr := range s.CheckRuns(owner, name, sha) {
		if cr.GetName() == checkName {
			out = append(out, cr)
		}
	}
	return out
}

// CommentsContaining lists a PR's comments whose body contains substr,
// oldest first.
func (s *Server) CommentsContaining(owner, name string, number int, substr string) []*github.IssueComment {
	out := []*github.IssueComment{}
	for _, c := range s.Comments(owner, name, number) {
		if strings.Contains(c.GetBody(), substr) {
			out = append(out, c)
		}
	}
	return out
}

// AcknowledgedDeliveries lists the webhook deliveries the receiver answered
// with a 2xx, oldest first: those it promised to process.
func (s *Server) AcknowledgedDeliveries() []DeliveryRecord {
	out := []DeliveryRecord{}
	for _, d := range s.Deliveries() {
		if d.StatusCode >= 200 && d.StatusCode <= 299 {
			out = append(out, d)
		}
	}
	return out
}
