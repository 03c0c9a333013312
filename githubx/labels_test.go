package githubx

import (
	"net/http"
	"testing"
)

func TestLabels(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("POST /repos/o/r/issues/7/labels", func(w http.ResponseWriter, r *http.Request) {
		wantBody(t, r, `["mq:testing"]`)
		writeJSON(w, http.StatusOK, []map[string]any{{"name": "mq:testing"}})
	})
	f.handle("DELETE /repos/o/r/issues/7/labels/{name}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("name") == "absent" {
			ghError(w, http.StatusNotFound, "Label does not exist")
			return
		}
		writeJSON(w, http.StatusOK, []map[string]any{})
	})
	c, _ := f.client()
	if err := c.AddLabel(t.Context(), testRepo, 7, "mq:testing"); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveLabel(t.Context(), testRepo, 7, "mq:pending"); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveLabel(t.Context(), testRepo, 7, "absent"); err != nil {
		t.Errorf("removing a label the PR lacks: %v, want nil", err)
	}
}
