package githubx

import (
	"strings"
	"testing"
)

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
