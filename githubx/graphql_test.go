package githubx

import (
	"net/http"
	"strings"
	"testing"
)

func TestIsGraphQLMutation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want bool
	}{
		{`{"query":"query { viewer { login } }"}`, false},
		{`{"query":"{ viewer { login } }"}`, false},
		{`{"query":"mutation { addComment(input: {}) { clientMutationId } }"}`, true},
		{`{"query":"  # mutation in a comment\n query Q { a }"}`, false},
		{`{"query":"query Q { a(s: \"mutation\") }"}`, false},
		{`{"query":"query Q { mutation }"}`, false},
		{`{"query":"query Q { a } mutation M { b }"}`, true},
		{`{"query":"query Q { a(s: \"\"\"mutation\"\"\") }"}`, false},
		{`{"query":"query Q { a "}`, true},         // unbalanced: counted as a write
		{`{"query":"query Q { a(s: \"x }"}`, true}, // unterminated string
		{`not json`, true},
		{`{"variables":{}}`, true},
	}
	for _, tt := range tests {
		if got := isGraphQLMutation([]byte(tt.body)); got != tt.want {
			t.Errorf("isGraphQLMutation(%s) = %v, want %v", tt.body, got, tt.want)
		}
	}
}

// A GraphQL query costs a point, a mutation and any REST write five.
func TestCostOf(t *testing.T) {
	t.Parallel()
	b := basePaths{rest: "/api/v3", graphql: "/api/graphql"}
	req := func(method, path, body string) *http.Request {
		r, _ := http.NewRequest(method, "https://ghe.example.com"+path, strings.NewReader(body))
		return r
	}
	mustEqual(t, "GET", b.costOf(req("GET", "/api/v3/repos/o/r", "")), cost{points: 1})
	mustEqual(t, "DELETE", b.costOf(req("DELETE", "/api/v3/repos/o/r/git/refs/heads/x", "")), cost{points: 5, write: true})
	mustEqual(t, "query", b.costOf(req("POST", "/api/graphql", `{"query":"{ viewer { login } }"}`)), cost{points: 1})
	mustEqual(t, "mutation", b.costOf(req("POST", "/api/graphql", `{"query":"mutation { x }"}`)), cost{points: 5, write: true})
}
