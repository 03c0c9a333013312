package fakegithub

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v66/github"
)

// repo is one repository: its bare git directory and everything GitHub
// keeps beside it. mu serializes every write (git refs and metadata) so
// that each API operation is atomic and its webhooks are queued in order.
type repo struct {
	s         *Server
	owner     string
	name      string
	id        int64
	git       *gitDir
	createdAt time.Time

	mu         sync.Mutex
	nextNumber int
	prs        map[int]*pullRequest
	comments   map[int64]*comment
	statuses   map[string][]*github.RepoStatus // by commit SHA, oldest first
	checkRuns  map[int64]*github.CheckRun
	checkOrder []int64
	suites     map[string]int64 // app id + head SHA → check suite id
	perms      map[string]string
	protection map[string][]string // protected branch → required contexts
	// enforcePRChecks makes required contexts apply to PR heads, as on
	// GitHub: a PR whose head lacks them is "blocked" and cannot be merged.
	enforcePRChecks bool
	labelIDs        map[string]int64
	workflowRuns    map[int64]*WorkflowRun
	mergeCache      map[string]mergeOutcome // base SHA + head SHA
	refLog          []RefChange             // the ref changes, oldest first (reflog.go)
}

// comment is an issue comment and its reactions.
type comment struct {
	c         *github.IssueComment
	number    int
	reactions []*github.Reaction
}

// mergeOutcome caches the mergeability of a head onto a base.
type mergeOutcome struct {
	conflict bool
	behind   bool
}

func repoKey(owner, name string) string {
	return strings.ToLower(owner + "/" + name)
}

// newRepo creates the bare repository on disk.
func (s *Server) newRepo(owner, name string) (*repo, error) {
	if owner == "" || name == "" || strings.ContainsAny(owner+name, "/\\ \x00") || strings.HasPrefix(owner+name, ".") {
		return nil, fmt.Errorf("invalid repository name %q", owner+"/"+name)
	}
	g, err := initBare(filepath.Join(s.dir, owner, name+".git"))
	if err != nil {
		return nil, fmt.Errorf("failed to create repository %s/%s: %w", owner, name, err)
	}
	return &repo{
		s:            s,
		owner:        owner,
		name:         name,
		id:           s.newID(),
		git:          g,
		createdAt:    time.Now().UTC(),
		nextNumber:   1,
		prs:          map[int]*pullRequest{},
		comments:     map[int64]*comment{},
		statuses:     map[string][]*github.RepoStatus{},
		checkRuns:    map[int64]*github.CheckRun{},
		suites:       map[string]int64{},
		perms:        map[string]string{},
		protection:   map[string][]string{},
		labelIDs:     map[string]int64{},
		workflowRuns: map[int64]*WorkflowRun{},
		mergeCache:   map[string]mergeOutcome{},
	}, nil
}

// fullName is "owner/name".
func (r *repo) fullName() string { return r.owner + "/" + r.name }

// apiURL is the repository's API URL.
func (r *repo) apiURL() string { return r.s.URL() + "/repos/" + r.fullName() }

// htmlURL is the repository's (fake) web URL.
func (r *repo) htmlURL() string { return r.s.URL() + "/" + r.fullName() }

// apiRepo renders the repository as GitHub's JSON.
func (r *repo) apiRepo() *github.Repository {
	return &github.Repository{
		ID:            github.Int64(r.id),
		NodeID:        github.String(fmt.Sprintf("R_%d", r.id)),
		Name:          github.String(r.name),
		FullName:      github.String(r.fullName()),
		Owner:         r.s.user(r.owner),
		Private:       github.Bool(false),
		DefaultBranch: github.String("main"),
		MasterBranch:  github.String("main"),
		HTMLURL:       github.String(r.htmlURL()),
		URL:           github.String(r.apiURL()),
		CloneURL:      github.String(r.htmlURL() + ".git"),
		CreatedAt:     &github.Timestamp{Time: r.createdAt},
		UpdatedAt:     &github.Timestamp{Time: r.createdAt},
		Permissions: map[string]bool{
			"admin": false, "maintain": false, "push": true, "triage": true, "pull": true,
		},
		AllowMergeCommit: github.Bool(true),
		AllowSquashMerge: github.Bool(true),
		AllowRebaseMerge: github.Bool(true),
	}
}

// permission returns a user's permission: the owner is admin, others what
// SetPermission gave them, else "none". Caller holds r.mu.
func (r *repo) permission(login string) string {
	if strings.EqualFold(login, r.owner) {
		return "admin"
	}
	if p, ok := r.perms[strings.ToLower(login)]; ok {
		return p
	}
	return "none"
}

// labelID returns a stable id for a label name. Caller holds r.mu.
func (r *repo) labelID(name string) int64 {
	key := strings.ToLower(name)
	if id, ok := r.labelIDs[key]; ok {
		return id
	}
	id := r.s.newID()
	r.labelIDs[key] = id
	return id
}

// apiLabel renders a label. Caller holds r.mu.
func (r *repo) apiLabel(name string) *github.Label {
	return &github.Label{
		ID:    github.Int64(r.labelID(name)),
		Name:  github.String(name),
		Color: github.String("ededed"),
		URL:   github.String(r.apiURL() + "/labels/" + name),
	}
}

// branchSHA returns a branch's head commit.
func (r *repo) branchSHA(branch string) (string, bool, error) {
	if !validRefName(branch) {
		return "", false, nil
	}
	return r.git.refSHA("refs/heads/" + branch)
}

// validRefName rejects names git (or path handling) would misread.
func validRefName(name string) bool {
	if name == "" || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") {
		return false
	}
	if strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") {
		return false
	}
	return !strings.ContainsAny(name, " ~^:?*[\\\x00\t\n")
}
