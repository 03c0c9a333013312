package app

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConfigTestBranches: github.test_branches is "rest" unless set (file
// or MQ_GITHUB_TEST_BRANCHES), anything but rest or git is refused naming
// the key, and the clones live next to the database unless github.git.dir
// (or MQ_GITHUB_GIT_DIR) says otherwise.
func TestConfigTestBranches(t *testing.T) {
	t.Parallel()
	c := validConfig(t)
	if c.GitHub.TestBranches != TestBranchesREST || c.gitHubBuildOptions(time.Now) != nil {
		t.Fatalf("default builder %q", c.GitHub.TestBranches)
	}
	c, err := LoadConfig(writeFile(t, "c.yml", "database:\n  path: /data/mq.db\ngithub:\n  test_branches: git\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.GitHub.TestBranches != TestBranchesGit || c.GitHub.Git.Dir != filepath.Join("/data", "git-clones") || len(c.gitHubBuildOptions(time.Now)) != 1 {
		t.Fatalf("git builder config %+v", c.GitHub)
	}
	c, err = LoadConfig("", envMap(map[string]string{EnvTestBranches: "git", EnvGitDir: "/var/lib/mq/clones"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.GitHub.TestBranches != TestBranchesGit || c.GitHub.Git.Dir != "/var/lib/mq/clones" {
		t.Fatalf("env overrides gave %+v", c.GitHub)
	}
	for value, want := range map[string]string{
		"svn": `github.test_branches (or MQ_GITHUB_TEST_BRANCHES) must be "rest" or "git", got "svn"`,
		"Git": `got "Git"`,
	} {
		c := validConfig(t)
		c.GitHub.TestBranches = value
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("test_branches %q: err %v, want %q", value, err, want)
		}
	}
	c = validConfig(t)
	c.GitHub.Git.CommitterName = "bot\nSigned-off-by: someone"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "github.git.committer_name") {
		t.Fatalf("committer with a line break: %v", err)
	}
}
