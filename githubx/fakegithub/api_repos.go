package fakegithub

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v66/github"
)

// CreateRepo creates owner/name with one commit on "main" holding files
// (a push webhook is sent).
func (s *Server) CreateRepo(owner, name string, files map[string]string) error {
	s.mu.Lock()
	if _, exists := s.repos[repoKey(owner, name)]; exists {
		s.mu.Unlock()
		return fmt.Errorf("failed to create repository %s/%s: already exists", owner, name)
	}
	s.mu.Unlock()
	r, err := s.newRepo(owner, name)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if _, exists := s.repos[repoKey(owner, name)]; exists {
		s.mu.Unlock()
		return fmt.Errorf("failed to create repository %s/%s: already exists", owner, name)
	}
	s.repos[repoKey(owner, name)] = r
	s.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.commitFiles("main", "", files, "Initial commit", owner); err != nil {
		return fmt.Errorf("failed to create initial commit: %w", err)
	}
	return nil
}

// commitFiles writes a commit on branch (created from "from", default
// main, if missing) applying files, and moves the branch. Caller holds r.mu.
func (r *repo) commitFiles(branch, from string, files map[string]string, message, author string) (string, error) {
	if !validRefName(branch) {
		return "", fmt.Errorf("invalid branch name %q", branch)
	}
	old, exists, err := r.branchSHA(branch)
	if err != nil {
		return "", err
	}
	parent := old
	if !exists {
		if from == "" {
			from = "main"
		}
		if parent, _, err = r.branchSHA(from); err != nil {
			return "", err
		}
	}
	var parents []string
	baseTree := ""
	if parent != "" {
		parents = []string{parent}
		baseTree = parent
	}
	tree, err := r.git.writeTree(baseTree, files)
	if err != nil {
		return "", err
	}
	if message == "" {
		message = "Update " + branch
	}
	sig := r.s.sig(author)
	sha, err := r.git.commitTree(tree, parents, message+"\n", sig, sig)
	if err != nil {
		return "", err
	}
	if err := r.moveRef("refs/heads/"+branch, old, sha, author); err != nil {
		return "", err
	}
	return sha, nil
}

// Commit adds a commit with files (Delete removes a path) on branch,
// creating the branch from main if missing, and sends the push webhook
// (as the repo owner).
func (s *Server) Commit(owner, name, branch string, files map[string]string, message string) (string, error) {
	r, err := s.repo(owner, name)
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.commitFiles(branch, "", files, message, owner)
}

// PushToBranch is an external push of a new commit with files onto branch
// (e.g. someone pushing to main behind the queue's back).
func (s *Server) PushToBranch(owner, name, branch string, files map[string]string) (string, error) {
	return s.Commit(owner, name, branch, files, "External push to "+branch)
}

// DeleteBranch deletes a branch (push webhook; PRs on it are closed).
func (s *Server) DeleteBranch(owner, name, branch string) error {
	r, err := s.repo(owner, name)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old, ok, err := r.branchSHA(branch)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("failed to delete branch %s: not found", branch)
	}
	return r.moveRef("refs/heads/"+branch, old, "", owner)
}

// SetPermission sets a user's permission: admin, maintain, write, triage,
// read or none.
func (s *Server) SetPermission(owner, name, user, perm string) error {
	r, err := s.repo(owner, name)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.perms[strings.ToLower(user)] = perm
	r.mu.Unlock()
	return nil
}

// SetRequiredChecks protects branch requiring contexts; nil contexts
// removes the protection (404 "Branch not protected").
func (s *Server) SetRequiredChecks(owner, name, branch string, contexts []string) error {
	r, err := s.repo(owner, name)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if contexts == nil {
		delete(r.protection, branch)
		return nil
	}
	r.protection[branch] = append([]string{}, contexts...)
	return nil
}

// SetPRChecksEnforced makes branch protection's required checks apply to
// pull request heads too, as on GitHub (off by default, so that tests and
// the sandbox need no CI on PR heads): a PR whose head has not passed them
// reports mergeable_state "blocked", and merging it is refused with a 405.
func (s *Server) SetPRChecksEnforced(owner, name string, on bool) error {
	r, err := s.repo(owner, name)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.enforcePRChecks = on
	r.mergeCache = map[string]mergeOutcome{}
	return nil
}

// SetStatus posts a commit status on sha as the CI app would, sending the
// status webhook.
func (s *Server) SetStatus(owner, name, sha, context, state string) error {
	r, err := s.repo(owner, name)
	if err != nil {
		return err
	}
	if !statusStates[state] {
		return fmt.Errorf("invalid status state %q", state)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addStatus(sha, state, context, "", "", ciApp().GetSlug()+"[bot]")
	return nil
}

// missingRequired names a required check of the PR's base branch that has
// not passed on its head, when enforcement is on; "" otherwise. Caller
// holds r.mu.
func (r *repo) missingRequired(pr *pullRequest) string {
	if !r.enforcePRChecks {
		return ""
	}
	for _, ctx := range r.protection[pr.baseRef] {
		passed := false
		for _, st := range r.statusesNewestFirst(pr.headSHA) {
			if st.GetContext() == ctx {
				passed = st.GetState() == "success"
				break
			}
		}
		for _, cr := range r.checkRuns {
			if cr.GetHeadSHA() == pr.headSHA && cr.GetName() == ctx && cr.GetConclusion() == "success" {
				passed = true
			}
		}
		if !passed {
			return ctx
		}
	}
	return ""
}

// AddWorkflowRun registers (or replaces) a GitHub Actions run.
func (s *Server) AddWorkflowRun(owner, name string, run WorkflowRun) error {
	r, err := s.repo(owner, name)
	if err != nil {
		return err
	}
	if run.ID == 0 {
		run.ID = s.newID()
	}
	r.mu.Lock()
	r.workflowRuns[run.ID] = &run
	r.mu.Unlock()
	return nil
}

// BranchSHA returns a branch's head commit.
func (s *Server) BranchSHA(owner, name, branch string) (string, error) {
	r, err := s.repo(owner, name)
	if err != nil {
		return "", err
	}
	sha, ok, err := r.branchSHA(branch)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", &apiError{status: http.StatusNotFound, msg: "branch " + branch + " not found"}
	}
	return sha, nil
}

// resolve resolves rev (SHA, branch or ref) in owner/name.
func (s *Server) resolve(owner, name, rev string) (*repo, string, error) {
	r, err := s.repo(owner, name)
	if err != nil {
		return nil, "", err
	}
	sha, ok, err := r.git.resolveCommit(rev)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", fmt.Errorf("failed to resolve %q: no such commit", rev)
	}
	return r, sha, nil
}

// TreeSHA returns the tree of a commit (SHA or branch).
func (s *Server) TreeSHA(owner, name, rev string) (string, error) {
	r, sha, err := s.resolve(owner, name, rev)
	if err != nil {
		return "", err
	}
	return r.git.treeOf(sha)
}

// FileAt reads path at rev; ok is false if there is no such file.
func (s *Server) FileAt(owner, name, rev, path string) (string, bool, error) {
	r, sha, err := s.resolve(owner, name, rev)
	if err != nil {
		return "", false, err
	}
	return r.git.fileAt(sha, path)
}

// Files reads every file at rev (path → content).
func (s *Server) Files(owner, name, rev string) (map[string]string, error) {
	r, sha, err := s.resolve(owner, name, rev)
	if err != nil {
		return nil, err
	}
	return r.git.files(sha)
}

// Branches lists branch names, sorted.
func (s *Server) Branches(owner, name string) []string {
	r, err := s.repo(owner, name)
	if err != nil {
		return nil
	}
	names, err := r.branchNames()
	if err != nil {
		return nil
	}
	return names
}

// MainHistory lists the first-parent history of branch, newest first.
func (s *Server) MainHistory(owner, name, branch string) ([]string, error) {
	r, err := s.repo(owner, name)
	if err != nil {
		return nil, err
	}
	sha, ok, err := r.branchSHA(branch)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("failed to read history: branch %s not found", branch)
	}
	shas, err := r.git.revList("", sha, true)
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(shas)-1; i < j; i, j = i+1, j-1 {
		shas[i], shas[j] = shas[j], shas[i]
	}
	return shas, nil
}

// Statuses lists the commit statuses on sha, oldest first.
func (s *Server) Statuses(owner, name, sha string) []*github.RepoStatus {
	r, err := s.repo(owner, name)
	if err != nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.statusesNewestFirst(sha)
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return list
}

// CheckRuns lists every check run on sha, oldest first.
func (s *Server) CheckRuns(owner, name, sha string) []*github.CheckRun {
	r, err := s.repo(owner, name)
	if err != nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.checkRunsFor(sha, false)
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return list
}
