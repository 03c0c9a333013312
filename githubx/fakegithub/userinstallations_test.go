package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"
)

// A user token lists the App's installation and, in it, the repositories
// the user may read with their permissions, page by page; a user with
// access to none sees no installation, and the App's own token is refused.
func TestUserInstallations(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	for _, name := range []string{"widgets", "gadgets", "secret"} {
		if err := s.CreateRepo("octo", name, map[string]string{"README.md": "x\n"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetPermission("octo", "widgets", "alice", "write"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPermission("octo", "gadgets", "alice", "read"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPermission("octo", "secret", "alice", "none"); err != nil {
		t.Fatal(err)
	}
	get := func(token, path string, out any) (int, http.Header) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.URL()+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if out != nil && res.StatusCode == http.StatusOK {
			if err := json.NewDecoder(res.Body).Decode(out); err != nil {
				t.Fatal(err)
			}
		}
		return res.StatusCode, res.Header
	}
	alice := s.IssueUserToken("alice")
	var insts struct {
		TotalCount    int                    `json:"total_count"`
		Installations []*github.Installation `json:"installations"`
	}
	if code, _ := get(alice, "/user/installations", &insts); code != http.StatusOK || insts.TotalCount != 1 ||
		len(insts.Installations) != 1 || insts.Installations[0].GetID() != s.InstallationID() {
		t.Fatalf("alice's installations: %d %+v", code, insts)
	}
	type repos struct {
		TotalCount   int                  `json:"total_count"`
		Repositories []*github.Repository `json:"repositories"`
	}
	path := fmt.Sprintf("/user/installations/%d/repositories", s.InstallationID())
	var first, second repos
	code, h := get(alice, path+"?per_page=1", &first)
	if code != http.StatusOK || first.TotalCount != 2 || len(first.Repositories) != 1 || !strings.Contains(h.Get("Link"), `rel="next"`) {
		t.Fatalf("first page: %d %+v, Link %q", code, first, h.Get("Link"))
	}
	get(alice, path+"?per_page=1&page=2", &second)
	got := map[string]map[string]bool{}
	for _, r := range append(first.Repositories, second.Repositories...) {
		got[r.GetFullName()] = r.Permissions
	}
	if len(got) != 2 || !got["octo/widgets"]["push"] || !got["octo/gadgets"]["pull"] || got["octo/gadgets"]["push"] {
		t.Errorf("alice's repositories: %v; want widgets (push) and gadgets (pull only)", got)
	}

	bob := s.IssueUserToken("bob")
	if code, _ := get(bob, "/user/installations", &insts); code != http.StatusOK || insts.TotalCount != 0 || len(insts.Installations) != 0 {
		t.Errorf("bob's installations: %d %+v", code, insts)
	}
	if code, _ := get(bob, path, nil); code != http.StatusNotFound {
		t.Errorf("bob's repositories: %d, want 404", code)
	}
	if code, _ := get(alice, "/user/installations/999/repositories", nil); code != http.StatusNotFound {
		t.Errorf("another installation: %d, want 404", code)
	}
	if code, _ := get(s.IssueToken(), "/user/installations", nil); code != http.StatusForbidden {
		t.Errorf("the App's token: %d, want 403", code)
	}
	if n := s.Calls("GET /user/installations/{id}/repositories"); n != 4 {
		t.Errorf("calls counted %d, want 4", n)
	}
}
