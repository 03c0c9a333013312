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

func FuzzHasMutation(f *testing.F) {
	for _, seed := range []string{"query { a }", "mutation { a }", `{ a(s: """x""") } mutation`, "# c\nmutation", `"\`, "}", `"""\"""`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		got := hasMutation(doc)
		// A document that starts with the keyword is always a mutation.
		if strings.HasPrefix(strings.TrimLeft(doc, " \t\n\r,"), "mutation") {
			rest := strings.TrimLeft(doc, " \t\n\r,")[len("mutation"):]
			if (rest == "" || !isNameChar(rest[0])) && !got {
				t.Fatalf("hasMutation(%q) = false", doc)
			}
		}
		// Prefixing a comment changes nothing.
		if hasMutation("# note\n"+doc) != got {
			t.Fatalf("a leading comment changed the answer for %q", doc)
		}
	})
}
