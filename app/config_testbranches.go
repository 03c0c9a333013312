package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mergequeue/mq/githubx"
)

// The builders of test branches (github.test_branches).
const (
	// TestBranchesREST builds test branches with GitHub's merges API
	// (SPEC §6): a scratch ref, one POST /merges per PR, a ref write to
	// publish. The default.
	TestBranchesREST = "rest"
	// TestBranchesGit builds them in a local bare clone per repository
	// (github.git.dir) and publishes them with one git push: no
	// content-creating request per build. Needs git 2.38 or later.
	TestBranchesGit = "git"
)

// Environment variables of the test branch builder.
const (
	EnvTestBranches = "MQ_GITHUB_TEST_BRANCHES"
	EnvGitDir       = "MQ_GITHUB_GIT_DIR"
)

// DefaultGitDirName is github.git.dir's default: this directory next to
// the SQLite database (database.path).
const DefaultGitDirName = "git-clones"

// GitHubGit is the `github.git:` block: how test branches are built with
// git (test_branches: git).
type GitHubGit struct {
	// Dir holds one bare clone per repository; default "git-clones" in the
	// directory of database.path.
	Dir string `yaml:"dir"`
	// CommitterName and CommitterEmail sign the merge commits; "" = the
	// App's bot.
	CommitterName  string `yaml:"committer_name"`
	CommitterEmail string `yaml:"committer_email"`
	// Timeout bounds one git process (fetch, merge, push).
	Timeout time.Duration `yaml:"timeout"`
}

// applyTestBranchDefaults fills github.test_branches and github.git.
func (c *Config) applyTestBranchDefaults() {
	if c.GitHub.TestBranches == "" {
		c.GitHub.TestBranches = TestBranchesREST
	}
	if c.GitHub.Git.Dir == "" {
		c.GitHub.Git.Dir = filepath.Join(filepath.Dir(c.Database.Path), DefaultGitDirName)
	}
	if c.GitHub.Git.Timeout == 0 {
		c.GitHub.Git.Timeout = githubx.DefaultGitTimeout
	}
}

// validateTestBranches reports github.test_branches' and github.git's
// problems. Whether git is recent enough is checked at start-up.
func (c *Config) validateTestBranches() []error {
	var errs []error
	switch c.GitHub.TestBranches {
	case TestBranchesREST, TestBranchesGit:
	default:
		errs = append(errs, fmt.Errorf("github.test_branches (or %s) must be %q or %q, got %q",
			EnvTestBranches, TestBranchesREST, TestBranchesGit, c.GitHub.TestBranches))
	}
	g := c.GitHub.Git
	if g.Timeout < 0 {
		errs = append(errs, fmt.Errorf("github.git.timeout must not be negative, got %v", g.Timeout))
	}
	for key, v := range map[string]string{"github.git.committer_name": g.CommitterName, "github.git.committer_email": g.CommitterEmail} {
		if strings.ContainsAny(v, "<>\n\r\x00") {
			errs = append(errs, fmt.Errorf("%s must not contain '<', '>' or line breaks, got %q", key, v))
		}
	}
	return errs
}

// gitHubBuildOptions are the GitHub client's options for the configured
// test branch builder; its pushes pass the lease write guard
// (leasePushGuard, with the clock now).
func (c *Config) gitHubBuildOptions(now func() time.Time) []githubx.Option {
	if c.GitHub.TestBranches != TestBranchesGit {
		return nil
	}
	g := c.GitHub.Git
	return []githubx.Option{githubx.WithGitBuilds(githubx.GitBuildConfig{Dir: g.Dir, CommitterName: g.CommitterName,
		CommitterEmail: g.CommitterEmail, Timeout: g.Timeout, PushGuard: leasePushGuard(now)})}
}
