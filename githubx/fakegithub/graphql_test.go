package fakegithub

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// postGraphQL sends a GraphQL document with an installation token and
// decodes the answer.
func postGraphQL(t *testing.T, s *Server, query string, vars map[string]any) (data map[string]any, errs []map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL()+"/graphql", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+s.IssueToken())
	res, err := (&http.Client{Timeout: requestTimeout}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST /graphql = %d, want 200", res.StatusCode)
	}
	var out struct {
		Data   map[string]any   `json:"data"`
		Errors []map[string]any `json:"errors"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out.Data, out.Errors
}

const testUpdateRefs = `mutation($input: UpdateRefsInput!) { updateRefs(input: $input) { clientMutationId } }`

// updateRefs creates, moves and deletes refs in one request, atomically: a
// refused update (a ref to delete that is gone) applies none of the others.
func TestGraphQLUpdateRefs(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{CI: CIOptions{Disabled: true}})
	main := must(t)(s.BranchSHA(testOwner, testRepo, "main"))
	next := must(t)(s.Commit(testOwner, testRepo, "old", map[string]string{"a.txt": "a"}, "add a"))
	r, _, err := newClient(t, s, "/").Repositories.Get(t.Context(), testOwner, testRepo)
	if err != nil {
		t.Fatal(err)
	}
	input := func(ups ...map[string]any) map[string]any {
		return map[string]any{"input": map[string]any{"repositoryId": r.GetNodeID(), "refUpdates": ups}}
	}
	zero := "0000000000000000000000000000000000000000"

	_, errs := postGraphQL(t, s, testUpdateRefs, input(
		map[string]any{"name": "refs/heads/mq-merge/new", "afterOid": main, "force": true},
		map[string]any{"name": "refs/heads/missing", "afterOid": zero},
	))
	if len(errs) != 1 || errs[0]["type"] != "UNPROCESSABLE" {
		t.Fatalf("errors %v, want one: a ref to delete does not exist", errs)
	}
	if _, err := s.BranchSHA(testOwner, testRepo, "mq-merge/new"); err == nil {
		t.Fatal("a refused updateRefs created a ref")
	}

	data, errs := postGraphQL(t, s, testUpdateRefs, input(
		map[string]any{"name": "refs/heads/mq-merge/new", "afterOid": main, "force": true},
		map[string]any{"name": "refs/heads/old", "afterOid": zero},
	))
	if len(errs) != 0 || data["updateRefs"] == nil {
		t.Fatalf("updateRefs = %v, %v", data, errs)
	}
	if sha, err := s.BranchSHA(testOwner, testRepo, "mq-merge/new"); err != nil || sha != main {
		t.Fatalf("created ref at %q (%v), want %s", sha, err, main)
	}
	if _, err := s.BranchSHA(testOwner, testRepo, "old"); err == nil {
		t.Fatalf("deleted ref (was %s) still there", next)
	}
	if _, errs := postGraphQL(t, s, `query { viewer { login } }`, nil); len(errs) != 1 {
		t.Fatalf("an unsupported document got errors %v, want one", errs)
	}
	if _, errs := postGraphQL(t, s, testUpdateRefs, map[string]any{"input": map[string]any{"repositoryId": "R_999"}}); len(errs) != 1 {
		t.Fatalf("an unknown repository got errors %v, want one", errs)
	}
}
