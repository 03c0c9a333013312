package githubx

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"
)

func TestDiffFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		files    []map[string]any
		want     map[string]string
		complete bool
	}{
		{"added, modified, removed and renamed", []map[string]any{
			{"filename": "a.go", "status": "added", "sha": "b1"},
			{"filename": "b.go", "status": "modified", "sha": "b2"},
			{"filename": "c.go", "status": "removed", "sha": "b3"},
			{"filename": "new.go", "status": "renamed", "sha": "b4", "previous_filename": "old.go"},
		}, map[string]string{"a.go": "b1", "b.go": "b2", "c.go": "", "new.go": "b4", "old.go": ""}, true},
		{"GitHub's cap makes the list incomplete", capped(300), nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handle("GET /repos/o/r/compare/{basehead}", func(w http.ResponseWriter, r *http.Request) {
				mustEqual(t, "basehead", r.PathValue("basehead"), "B...H")
				writeJSON(w, http.StatusOK, map[string]any{"files": tc.files})
			})
			c, _ := f.client()
			got, complete, err := c.DiffFiles(t.Context(), testRepo, "B", "H")
			if err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "complete", complete, tc.complete)
			if tc.want != nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("DiffFiles() = %v, want %v", got, tc.want)
			}
		})
	}
}

func capped(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"filename": fmt.Sprintf("f%d", i), "status": "modified", "sha": "x"}
	}
	return out
}

func TestContains(t *testing.T) {
	t.Parallel()
	for status, want := range map[string]bool{"ahead": true, "identical": true, "behind": false, "diverged": false} {
		f := newFakeAPI(t)
		f.handle("GET /repos/o/r/compare/{basehead}", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"status": status})
		})
		c, _ := f.client()
		got, err := c.Contains(t.Context(), testRepo, "A", "H")
		if err != nil {
			t.Fatal(err)
		}
		mustEqual(t, status, got, want)
	}
}
