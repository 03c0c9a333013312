package fakegithub

import (
	"reflect"
	"testing"

	"github.com/google/go-github/v66/github"
)

func TestGoAPIEvents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		act  func(t *testing.T, s *Server, c *github.Client, n int)
		want []string
		pr   func(t *testing.T, pr *github.PullRequest)
	}{
		{
			name: "force push",
			act: func(t *testing.T, s *Server, c *github.Client, n int) {
				must(t)(s.ForcePushPR(testOwner, testRepo, n, map[string]string{"z.txt": "z"}))
			},
			want: []string{"push", "pull_request.synchronize"},
			pr: func(t *testing.T, pr *github.PullRequest) {
				if pr.GetHead().GetSHA() == "" || pr.GetMergeableState() != "clean" {
					t.Fatalf("after force push: %v", pr)
				}
			},
		},
		{
			name: "manual merge",
			act: func(t *testing.T, s *Server, c *github.Client, n int) {
				must(t)(s.MergePRManually(testOwner, testRepo, n, "carol"))
			},
			want: []string{"push", "pull_request.closed"},
			pr: func(t *testing.T, pr *github.PullRequest) {
				if !pr.GetMerged() || pr.GetMergedBy().GetLogin() != "carol" {
					t.Fatalf("after manual merge: %v", pr)
				}
			},
		},
		{
			name: "head pushed to base elsewhere",
			act: func(t *testing.T, s *Server, c *github.Client, n int) {
				head := must(t)(s.BranchSHA(testOwner, testRepo, "feat"))
				_, _, err := c.Git.UpdateRef(t.Context(), testOwner, testRepo, &github.Reference{Ref: github.String("heads/main"), Object: &github.GitObject{SHA: github.String(head)}}, false)
				if err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"push", "pull_request.closed"},
			pr: func(t *testing.T, pr *github.PullRequest) {
				if !pr.GetMerged() || pr.GetMergedBy().GetLogin() != BotLogin {
					t.Fatalf("after fast-forward: %v", pr)
				}
			},
		},
		{
			name: "head branch updated through the API",
			act: func(t *testing.T, s *Server, c *github.Client, n int) {
				sha := must(t)(s.Commit(testOwner, testRepo, "other", map[string]string{"o.txt": "o"}, "o"))
				_, _, err := c.Git.UpdateRef(t.Context(), testOwner, testRepo, &github.Reference{Ref: github.String("heads/feat"), Object: &github.GitObject{SHA: github.String(sha)}}, true)
				if err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"push", "push", "pull_request.synchronize"},
		},
		{
			name: "draft, edit, close, reopen, unlabel",
			act: func(t *testing.T, s *Server, c *github.Client, n int) {
				noErr(t, s.SetDraft(testOwner, testRepo, n, "alice", true))
				noErr(t, s.SetDraft(testOwner, testRepo, n, "alice", false))
				noErr(t, s.EditPR(testOwner, testRepo, n, "alice", PREdit{Title: github.String("New title")}))
				noErr(t, s.AddLabel(testOwner, testRepo, n, "alice", "x"))
				noErr(t, s.RemoveLabel(testOwner, testRepo, n, "alice", "x"))
				noErr(t, s.ClosePR(testOwner, testRepo, n, "alice"))
				noErr(t, s.ReopenPR(testOwner, testRepo, n, "alice"))
			},
			want: []string{
				"pull_request.converted_to_draft", "pull_request.ready_for_review", "pull_request.edited",
				"pull_request.labeled", "pull_request.unlabeled", "pull_request.closed", "pull_request.reopened",
			},
			pr: func(t *testing.T, pr *github.PullRequest) {
				if pr.GetTitle() != "New title" || pr.GetState() != "open" || len(pr.Labels) != 0 {
					t.Fatalf("after edits: %v", pr)
				}
			},
		},
		{
			name: "deleting the head branch closes the PR",
			act: func(t *testing.T, s *Server, c *github.Client, n int) {
				if err := s.DeleteBranch(testOwner, testRepo, "feat"); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"push", "pull_request.closed"},
			pr: func(t *testing.T, pr *github.PullRequest) {
				if pr.GetState() != "closed" || pr.GetMerged() {
					t.Fatalf("after branch delete: %v", pr)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, Options{CI: CIOptions{Disabled: true}})
			c := newClient(t, s, "/")
			must(t)(s.Commit(testOwner, testRepo, "feat", map[string]string{"a.txt": "a"}, "a"))
			n, err := s.OpenPR(testOwner, testRepo, PROptions{Head: "feat", Author: "alice"})
			if err != nil {
				t.Fatal(err)
			}
			sink := newHookSink(t, s)
			tc.act(t, s, c, n)
			if got := sink.names(s); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("events %v, want %v", got, tc.want)
			}
			if tc.pr != nil {
				pr, err := s.PR(testOwner, testRepo, n)
				if err != nil {
					t.Fatal(err)
				}
				tc.pr(t, pr)
			}
		})
	}
}

func TestNestedFilesAndHistory(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	first := must(t)(s.BranchSHA(testOwner, testRepo, "main"))
	second := must(t)(s.Commit(testOwner, testRepo, "main", map[string]string{"a/b/c.txt": "deep", "a/d.txt": "d"}, "nested"))
	third := must(t)(s.Commit(testOwner, testRepo, "main", map[string]string{"a/b/c.txt": Delete, "README.md": "changed\n"}, "delete"))
	if v, ok, err := s.FileAt(testOwner, testRepo, second, "a/b/c.txt"); err != nil || !ok || v != "deep" {
		t.Fatalf("FileAt(second) = %q %v %v", v, ok, err)
	}
	if _, ok, err := s.FileAt(testOwner, testRepo, "main", "a/b/c.txt"); err != nil || ok {
		t.Fatalf("deleted file still present: %v %v", ok, err)
	}
	hist, err := s.MainHistory(testOwner, testRepo, "main")
	if err != nil || !reflect.DeepEqual(hist, []string{third, second, first}) {
		t.Fatalf("MainHistory = %v, %v", hist, err)
	}
	if b := s.Branches(testOwner, testRepo); !reflect.DeepEqual(b, []string{"main"}) {
		t.Fatalf("Branches = %v", b)
	}
	if _, err := s.Commit(testOwner, testRepo, "main", map[string]string{"../evil": "x"}, "bad"); err == nil {
		t.Fatal("path escaping the tree was accepted")
	}
}
