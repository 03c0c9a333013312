package fakegithub

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"
)

func TestMergesAPI(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	must(t)(s.Commit(testOwner, testRepo, "clean", map[string]string{"c.txt": "c"}, "add c"))
	must(t)(s.Commit(testOwner, testRepo, "conflict", map[string]string{"README.md": "branch\n"}, "edit readme"))
	must(t)(s.Commit(testOwner, testRepo, "target", map[string]string{"README.md": "target\n"}, "edit readme too"))

	tests := []struct {
		name, base, head string
		want             int
	}{
		{"clean merge", "target", "clean", http.StatusCreated},
		{"already merged", "target", "clean", http.StatusNoContent},
		{"conflict", "target", "conflict", http.StatusConflict},
		{"missing base", "nope", "clean", http.StatusNotFound},
		{"missing head", "target", "nope", http.StatusNotFound},
	}
	for _, tc := range tests {
		before, _ := s.BranchSHA(testOwner, testRepo, "target")
		rc, resp, _ := c.Repositories.Merge(ctx, testOwner, testRepo, &github.RepositoryMergeRequest{
			Base: github.String(tc.base), Head: github.String(tc.head), CommitMessage: github.String("merge " + tc.head),
		})
		if statusOf(resp) != tc.want {
			t.Fatalf("%s: status = %d, want %d", tc.name, statusOf(resp), tc.want)
		}
		after, _ := s.BranchSHA(testOwner, testRepo, "target")
		if tc.want != http.StatusCreated {
			if after != before {
				t.Fatalf("%s: target moved", tc.name)
			}
			continue
		}
		headSHA, _ := s.BranchSHA(testOwner, testRepo, tc.head)
		if rc.GetSHA() != after || len(rc.Parents) != 2 || rc.Parents[0].GetSHA() != before || rc.Parents[1].GetSHA() != headSHA {
			t.Fatalf("%s: merge commit %v (target %s)", tc.name, rc, after)
		}
		files, _ := s.Files(testOwner, testRepo, after)
		if files["c.txt"] != "c" || files["README.md"] != "target\n" || rc.GetCommit().GetMessage() != "merge clean" {
			t.Fatalf("%s: files %v message %q", tc.name, files, rc.GetCommit().GetMessage())
		}
	}
}

// setupPR makes repo acme/<name> with a PR #1 "feat" of two commits while
// main moved on with m.txt. It returns the PR head.
func setupPR(t *testing.T, s *Server, name string) string {
	t.Helper()
	if err := s.CreateRepo(testOwner, name, map[string]string{"README.md": "hello\n", "src/x.go": "package x\n"}); err != nil {
		t.Fatal(err)
	}
	must(t)(s.Commit(testOwner, name, "feat", map[string]string{"a.txt": "a"}, "add a"))
	head := must(t)(s.Commit(testOwner, name, "feat", map[string]string{"src/b.go": "package x // b\n", "README.md": "hello\nfeat\n"}, "add b"))
	must(t)(s.PushToBranch(testOwner, name, "main", map[string]string{"m.txt": "m"}))
	if _, err := s.OpenPR(testOwner, name, PROptions{Head: "feat", Title: "Feature", Author: "alice"}); err != nil {
		t.Fatal(err)
	}
	return head
}

func TestPullMergeMethods(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	wantFiles := map[string]string{"README.md": "hello\nfeat\n", "src/x.go": "package x\n", "src/b.go": "package x // b\n", "a.txt": "a", "m.txt": "m"}
	tests := []struct {
		method      string
		newCommits  int // first-parent commits added to main
		parents     int
		wantMessage string
	}{
		{"merge", 1, 2, "Merge pull request #1 from acme/feat"},
		{"squash", 1, 1, "Feature (#1)"},
		{"rebase", 2, 1, "add b"},
	}
	for _, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			name := "repo-" + tc.method
			head := setupPR(t, s, name)
			oldMain := must(t)(s.BranchSHA(testOwner, name, "main"))
			res, _, err := c.PullRequests.Merge(ctx, testOwner, name, 1, "", &github.PullRequestOptions{MergeMethod: tc.method, SHA: head})
			if err != nil || !res.GetMerged() || res.GetMessage() != "Pull Request successfully merged" {
				t.Fatalf("Merge = %v, %v", res, err)
			}
			newMain := must(t)(s.BranchSHA(testOwner, name, "main"))
			if res.GetSHA() != newMain {
				t.Fatalf("result %s, main at %s", res.GetSHA(), newMain)
			}
			files, err := s.Files(testOwner, name, newMain)
			if err != nil || len(files) != len(wantFiles) {
				t.Fatalf("files = %v, %v", files, err)
			}
			for p, v := range wantFiles {
				if files[p] != v {
					t.Fatalf("file %s = %q, want %q", p, files[p], v)
				}
			}
			hist, _ := s.MainHistory(testOwner, name, "main")
			if hist[tc.newCommits] != oldMain {
				t.Fatalf("history %v: want old main %s after %d new commits", hist, oldMain, tc.newCommits)
			}
			rc, _, _ := c.Repositories.GetCommit(ctx, testOwner, name, newMain, nil)
			if len(rc.Parents) != tc.parents || !strings.HasPrefix(rc.GetCommit().GetMessage(), tc.wantMessage) {
				t.Fatalf("commit parents %d message %q", len(rc.Parents), rc.GetCommit().GetMessage())
			}
			pr, _, err := c.PullRequests.Get(ctx, testOwner, name, 1)
			if err != nil || pr.GetState() != "closed" || !pr.GetMerged() || pr.GetMergeCommitSHA() != newMain || pr.GetMergedBy().GetLogin() != BotLogin {
				t.Fatalf("PR after merge = %v, %v", pr, err)
			}
			if _, resp, _ := c.PullRequests.Merge(ctx, testOwner, name, 1, "", nil); statusOf(resp) != http.StatusMethodNotAllowed {
				t.Fatalf("merging a merged PR = %d, want 405", statusOf(resp))
			}
		})
	}
}

func TestPullMergeRefusals(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	head := setupPR(t, s, "refusals")
	must(t)(s.PushToPR(testOwner, "refusals", 1, map[string]string{"late.txt": "late"}))

	_, resp, err := c.PullRequests.Merge(ctx, testOwner, "refusals", 1, "", &github.PullRequestOptions{SHA: head})
	if statusOf(resp) != http.StatusConflict || !strings.Contains(err.Error(), "Head branch was modified") {
		t.Fatalf("stale sha = %d %v, want 409", statusOf(resp), err)
	}

	// A conflicting change on main makes the PR dirty and unmergeable.
	must(t)(s.PushToBranch(testOwner, "refusals", "main", map[string]string{"README.md": "conflict\n"}))
	pr, _, err := c.PullRequests.Get(ctx, testOwner, "refusals", 1)
	if err != nil || pr.GetMergeableState() != "dirty" || pr.Mergeable == nil || *pr.Mergeable {
		t.Fatalf("conflicting PR = %v / %v, %v", pr.GetMergeableState(), pr.Mergeable, err)
	}
	for _, method := range []string{"merge", "squash", "rebase"} {
		if _, resp, _ := c.PullRequests.Merge(ctx, testOwner, "refusals", 1, "", &github.PullRequestOptions{MergeMethod: method}); statusOf(resp) != http.StatusMethodNotAllowed {
			t.Fatalf("%s of conflicting PR = %d, want 405", method, statusOf(resp))
		}
	}
	if got, _ := s.PR(testOwner, "refusals", 1); got.GetMerged() || got.GetState() != "open" {
		t.Fatalf("PR changed by refused merges: %v", got)
	}
}

// TestQueueFlowTreesMatch walks the bot's path: build a test branch with
// the merges API on a scratch ref, let CI pass it, merge the PR with the
// tested head SHA, and compare the landed tree with the tested tree.
func TestQueueFlowTreesMatch(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	head := setupPR(t, s, "flow")
	main := must(t)(s.BranchSHA(testOwner, "flow", "main"))

	if _, _, err := c.Git.CreateRef(ctx, testOwner, "flow", &github.Reference{Ref: github.String("refs/heads/mq-temp/1"), Object: &github.GitObject{SHA: github.String(main)}}); err != nil {
		t.Fatal(err)
	}
	merged, _, err := c.Repositories.Merge(ctx, testOwner, "flow", &github.RepositoryMergeRequest{Base: github.String("mq-temp/1"), Head: github.String(head)})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Git.CreateRef(ctx, testOwner, "flow", &github.Reference{Ref: github.String("refs/heads/mq-merge/pr-1/1"), Object: &github.GitObject{SHA: merged.SHA}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Git.DeleteRef(ctx, testOwner, "flow", "heads/mq-temp/1"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, s)
	combined, _, err := c.Repositories.GetCombinedStatus(ctx, testOwner, "flow", merged.GetSHA(), nil)
	if err != nil || combined.GetState() != "success" {
		t.Fatalf("CI on test branch = %v, %v", combined.GetState(), err)
	}
	res, _, err := c.PullRequests.Merge(ctx, testOwner, "flow", 1, "", &github.PullRequestOptions{SHA: head, MergeMethod: "merge"})
	if err != nil {
		t.Fatal(err)
	}
	tested := must(t)(s.TreeSHA(testOwner, "flow", merged.GetSHA()))
	landed := must(t)(s.TreeSHA(testOwner, "flow", res.GetSHA()))
	if tested != landed {
		t.Fatalf("landed tree %s != tested tree %s", landed, tested)
	}
	if runs := s.CIRuns(); len(runs) != 1 || runs[0].Branch != "mq-merge/pr-1/1" {
		t.Fatalf("CI runs = %+v (mq-temp must not trigger CI)", runs)
	}
}

// With required checks enforced on PR heads, a PR whose head has not
// passed them is "blocked" and its merge is refused with a 405 naming the
// check; once its head passes, it is no longer blocked and merges.
func TestPullMergeBlockedByRequiredChecks(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	head := setupPR(t, s, "protected")
	if err := s.SetRequiredChecks(testOwner, "protected", "main", []string{"ci/test"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPRChecksEnforced(testOwner, "protected", true); err != nil {
		t.Fatal(err)
	}
	pr, _, err := c.PullRequests.Get(ctx, testOwner, "protected", 1)
	if err != nil || pr.GetMergeableState() != "blocked" {
		t.Fatalf("PR without its required check = %q, %v; want blocked", pr.GetMergeableState(), err)
	}
	_, resp, err := c.PullRequests.Merge(ctx, testOwner, "protected", 1, "", &github.PullRequestOptions{SHA: head})
	if statusOf(resp) != http.StatusMethodNotAllowed || !strings.Contains(err.Error(), `"ci/test"`) {
		t.Fatalf("merge of a blocked PR = %d %v, want 405 naming ci/test", statusOf(resp), err)
	}
	if err := s.SetStatus(testOwner, "protected", head, "ci/test", "success"); err != nil {
		t.Fatal(err)
	}
	if pr, _, err = c.PullRequests.Get(ctx, testOwner, "protected", 1); err != nil || pr.GetMergeableState() == "blocked" {
		t.Fatalf("PR after its check passed = %q, %v; want no longer blocked", pr.GetMergeableState(), err)
	}
	if _, _, err := c.PullRequests.Merge(ctx, testOwner, "protected", 1, "", &github.PullRequestOptions{SHA: head}); err != nil {
		t.Fatalf("merge after the check passed: %v", err)
	}
}
