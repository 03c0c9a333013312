package fakegithub

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

func TestPutContents(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	token := s.IssueUserToken("alice")
	if _, err := s.Commit(testOwner, testRepo, "feature", map[string]string{"f.txt": "f\n"}, "Add f"); err != nil {
		t.Fatal(err)
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	readmeSHA := blobSHA("hello\n")
	tests := []struct {
		name, path, body string
		want             int
		wantFile         string // content of path on the branch afterwards ("" = unchanged)
		branch           string
	}{
		{"create on a branch", "docs/new.md", `{"message":"Add docs","content":"` + b64("new\n") + `","branch":"feature"}`, http.StatusCreated, "new\n", "feature"},
		{"create on main by default", "main.txt", `{"message":"Add main.txt","content":"` + b64("m\n") + `"}`, http.StatusCreated, "m\n", "main"},
		{"replace without sha", "README.md", `{"message":"Edit","content":"` + b64("x\n") + `"}`, http.StatusUnprocessableEntity, "", ""},
		{"replace with a stale sha", "README.md", `{"message":"Edit","content":"` + b64("x\n") + `","sha":"` + blobSHA("old\n") + `"}`, http.StatusConflict, "", ""},
		{"replace with the sha", "README.md", `{"message":"Edit","content":"` + b64("x\n") + `","sha":"` + readmeSHA + `"}`, http.StatusOK, "x\n", "main"},
		{"missing branch", "a.txt", `{"message":"Add","content":"` + b64("a") + `","branch":"nope"}`, http.StatusNotFound, "", ""},
		{"no message", "a.txt", `{"content":"` + b64("a") + `"}`, http.StatusUnprocessableEntity, "", ""},
		{"not base64", "a.txt", `{"message":"Add","content":"***"}`, http.StatusUnprocessableEntity, "", ""},
		{"bad path", "a/../b", `{"message":"Add","content":"` + b64("a") + `"}`, http.StatusUnprocessableEntity, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPut, s.URL()+"/repos/acme/widgets/contents/"+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Authorization", "token "+token)
			resp, err := testHTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("PUT contents = %d, want %d", resp.StatusCode, tc.want)
			}
			if tc.wantFile == "" {
				return
			}
			got, ok, err := s.FileAt(testOwner, testRepo, tc.branch, tc.path)
			if err != nil || !ok || got != tc.wantFile {
				t.Fatalf("%s on %s = %q (%v, %v), want %q", tc.path, tc.branch, got, ok, err, tc.wantFile)
			}
		})
	}
}
