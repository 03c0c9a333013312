package fakegithub

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-github/v66/github"
)

func TestRefsLifecycle(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{CI: CIOptions{Disabled: true}})
	c := newClient(t, s, "/")
	ctx := t.Context()
	main := must(t)(s.BranchSHA(testOwner, testRepo, "main"))
	side := must(t)(s.Commit(testOwner, testRepo, "side", map[string]string{"b.txt": "b"}, "add b"))
	next := must(t)(s.Commit(testOwner, testRepo, "main", map[string]string{"a.txt": "a"}, "add a"))

	const name = "mq-temp/pr-1/abc"
	ref, _, err := c.Git.CreateRef(ctx, testOwner, testRepo, &github.Reference{Ref: github.String("refs/heads/" + name), Object: &github.GitObject{SHA: github.String(main)}})
	if err != nil || ref.GetObject().GetSHA() != main {
		t.Fatalf("CreateRef = %v, %v", ref, err)
	}
	_, resp, _ := c.Git.CreateRef(ctx, testOwner, testRepo, &github.Reference{Ref: github.String("refs/heads/" + name), Object: &github.GitObject{SHA: github.String(main)}})
	if statusOf(resp) != http.StatusUnprocessableEntity {
		t.Fatalf("duplicate CreateRef = %d, want 422", statusOf(resp))
	}
	got, _, err := c.Git.GetRef(ctx, testOwner, testRepo, "heads/"+name)
	if err != nil || got.GetRef() != "refs/heads/"+name {
		t.Fatalf("GetRef = %v, %v", got, err)
	}
	br, _, err := c.Repositories.GetBranch(ctx, testOwner, testRepo, name, 0)
	if err != nil || br.GetCommit().GetSHA() != main || br.GetCommit().GetCommit().GetTree().GetSHA() == "" {
		t.Fatalf("GetBranch(slashes) = %v, %v", br, err)
	}

	tests := []struct {
		name  string
		sha   string
		force bool
		want  int
	}{
		{"fast forward", next, false, http.StatusOK},
		{"not fast forward", side, false, http.StatusUnprocessableEntity},
		{"forced", side, true, http.StatusOK},
		{"missing object", "0123456789012345678901234567890123456789", true, http.StatusUnprocessableEntity},
	}
	for _, tc := range tests {
		_, resp, _ := c.Git.UpdateRef(ctx, testOwner, testRepo, &github.Reference{Ref: github.String("heads/" + name), Object: &github.GitObject{SHA: github.String(tc.sha)}}, tc.force)
		if statusOf(resp) != tc.want {
			t.Fatalf("%s: UpdateRef = %d, want %d", tc.name, statusOf(resp), tc.want)
		}
	}
	if sha, _ := s.BranchSHA(testOwner, testRepo, name); sha != side {
		t.Fatalf("branch at %s, want %s", sha, side)
	}
	if resp, err := c.Git.DeleteRef(ctx, testOwner, testRepo, "heads/"+name); err != nil || statusOf(resp) != http.StatusNoContent {
		t.Fatalf("DeleteRef = %d, %v", statusOf(resp), err)
	}
	if resp, _ := c.Git.DeleteRef(ctx, testOwner, testRepo, "heads/"+name); statusOf(resp) != http.StatusUnprocessableEntity {
		t.Fatalf("second DeleteRef = %d, want 422", statusOf(resp))
	}
	if _, resp, _ := c.Git.GetRef(ctx, testOwner, testRepo, "heads/"+name); statusOf(resp) != http.StatusNotFound {
		t.Fatalf("GetRef after delete = %d, want 404", statusOf(resp))
	}
}

func TestCommitsAndCompare(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	base := must(t)(s.BranchSHA(testOwner, testRepo, "main"))
	f1 := must(t)(s.Commit(testOwner, testRepo, "feature", map[string]string{"dir/a.txt": "a"}, "one"))
	f2 := must(t)(s.Commit(testOwner, testRepo, "feature", map[string]string{"dir/b.txt": "b", "README.md": Delete}, "two"))

	rc, _, err := c.Repositories.GetCommit(ctx, testOwner, testRepo, "feature", nil)
	if err != nil || rc.GetSHA() != f2 || len(rc.Parents) != 1 || rc.Parents[0].GetSHA() != f1 {
		t.Fatalf("GetCommit = %v, %v", rc, err)
	}
	tree := must(t)(s.TreeSHA(testOwner, testRepo, f2))
	if rc.GetCommit().GetTree().GetSHA() != tree || rc.GetCommit().GetMessage() != "two" {
		t.Fatalf("commit tree/message = %s %q", rc.GetCommit().GetTree().GetSHA(), rc.GetCommit().GetMessage())
	}
	gc, _, err := c.Git.GetCommit(ctx, testOwner, testRepo, f2)
	if err != nil || gc.GetTree().GetSHA() != tree {
		t.Fatalf("Git.GetCommit = %v, %v", gc, err)
	}
	files, err := s.Files(testOwner, testRepo, f2)
	if err != nil || len(files) != 2 || files["dir/a.txt"] != "a" || files["dir/b.txt"] != "b" {
		t.Fatalf("Files = %v, %v", files, err)
	}
	must(t)(s.PushToBranch(testOwner, testRepo, "main", map[string]string{"m.txt": "m"}))

	tests := []struct {
		name, base, head, status string
		ahead, behind            int
	}{
		{"identical", "feature", "feature", "identical", 0, 0},
		{"ahead", base, "feature", "ahead", 2, 0},
		{"behind", "feature", f1, "behind", 0, 1},
		{"diverged", "main", "feature", "diverged", 2, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmp, _, err := c.Repositories.CompareCommits(ctx, testOwner, testRepo, tc.base, tc.head, nil)
			if err != nil {
				t.Fatal(err)
			}
			if cmp.GetStatus() != tc.status || cmp.GetAheadBy() != tc.ahead || cmp.GetBehindBy() != tc.behind {
				t.Fatalf("compare = %s +%d -%d", cmp.GetStatus(), cmp.GetAheadBy(), cmp.GetBehindBy())
			}
			if cmp.GetMergeBaseCommit().GetSHA() == "" {
				t.Fatal("no merge_base_commit")
			}
		})
	}
	if _, resp, _ := c.Repositories.GetCommit(ctx, testOwner, testRepo, "nope", nil); statusOf(resp) != http.StatusUnprocessableEntity {
		t.Fatalf("missing commit = %d, want 422", statusOf(resp))
	}
}

func TestBranchProtection(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/api/v3/")
	ctx := t.Context()
	if _, resp, _ := c.Repositories.GetRequiredStatusChecks(ctx, testOwner, testRepo, "main"); statusOf(resp) != http.StatusNotFound {
		t.Fatalf("unprotected = %d, want 404", statusOf(resp))
	}
	if _, resp, err := c.Repositories.GetBranchProtection(ctx, testOwner, testRepo, "main"); !errors.Is(err, github.ErrBranchNotProtected) {
		t.Fatalf("GetBranchProtection = %d, %v; want ErrBranchNotProtected", statusOf(resp), err)
	}
	noErr(t, s.SetRequiredChecks(testOwner, testRepo, "main", []string{"ci/test", "lint"}))
	rsc, _, err := c.Repositories.GetRequiredStatusChecks(ctx, testOwner, testRepo, "main")
	if err != nil || rsc.Contexts == nil || len(*rsc.Contexts) != 2 || len(*rsc.Checks) != 2 || (*rsc.Checks)[1].Context != "lint" {
		t.Fatalf("GetRequiredStatusChecks = %+v, %v", rsc, err)
	}
	prot, _, err := c.Repositories.GetBranchProtection(ctx, testOwner, testRepo, "main")
	if err != nil || len(*prot.GetRequiredStatusChecks().Contexts) != 2 {
		t.Fatalf("GetBranchProtection = %+v, %v", prot, err)
	}
	if _, resp, _ := c.Repositories.GetRequiredStatusChecks(ctx, testOwner, testRepo, "nope"); statusOf(resp) != http.StatusNotFound {
		t.Fatalf("missing branch = %d, want 404", statusOf(resp))
	}
}

func TestPermissions(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	noErr(t, s.SetPermission(testOwner, testRepo, "alice", "write"))
	noErr(t, s.SetPermission(testOwner, testRepo, "mia", "maintain"))
	tests := []struct{ user, want string }{
		{testOwner, "admin"}, {"alice", "write"}, {"mia", "write"}, {"bob", "none"},
	}
	for _, tc := range tests {
		p, _, err := c.Repositories.GetPermissionLevel(ctx, testOwner, testRepo, tc.user)
		if err != nil || p.GetPermission() != tc.want || p.GetUser().GetLogin() != tc.user {
			t.Fatalf("%s: permission = %v, %v; want %s", tc.user, p, err, tc.want)
		}
	}
}

func TestConcurrentWrites(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	const workers = 8
	for i := 0; i < workers; i++ {
		must(t)(s.Commit(testOwner, testRepo, fmt.Sprintf("f%d", i), map[string]string{fmt.Sprintf("f%d.txt", i): "x"}, "f"))
	}
	errs := make(chan error, workers)
	for i := 0; i < workers; i++ {
		go func(i int) {
			_, _, err := c.Repositories.Merge(ctx, testOwner, testRepo, &github.RepositoryMergeRequest{Base: github.String("main"), Head: github.String(fmt.Sprintf("f%d", i))})
			errs <- err
		}(i)
	}
	for i := 0; i < workers; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	files, err := s.Files(testOwner, testRepo, "main")
	if err != nil || len(files) != workers+1 {
		t.Fatalf("main has %d files, want %d: %v", len(files), workers+1, err)
	}
	waitIdle(t, s)
}
