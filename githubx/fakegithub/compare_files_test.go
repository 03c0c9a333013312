package fakegithub

import (
	"context"
	"testing"
)

// The compare API lists the files changed from the merge base, with the
// blob SHA at head, as GitHub does.
func TestCompareListsChangedFiles(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	gh := newClient(t, s, "/")
	ctx := context.Background()
	if err := s.CreateRepo("o", "r", map[string]string{"keep.txt": "k\n", "gone.txt": "g\n", "mod.txt": "1\n"}); err != nil {
		t.Fatal(err)
	}
	base, _ := s.BranchSHA("o", "r", "main")
	head, err := s.Commit("o", "r", "feature", map[string]string{"gone.txt": Delete, "mod.txt": "2\n", "new.txt": "n\n"}, "change")
	if err != nil {
		t.Fatal(err)
	}
	cmp, _, err := gh.Repositories.CompareCommits(ctx, "o", "r", base, head, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range cmp.Files {
		got[f.GetFilename()] = f.GetStatus()
		if f.GetStatus() != "removed" && f.GetSHA() == "" {
			t.Errorf("%s has no blob SHA", f.GetFilename())
		}
	}
	want := map[string]string{"gone.txt": "removed", "mod.txt": "modified", "new.txt": "added"}
	if len(got) != len(want) {
		t.Fatalf("files %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
}
