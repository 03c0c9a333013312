package githubx

import "encoding/json"

// isGraphQLMutation reports whether a GraphQL request body ({"query":
// "…"}) holds a mutation, which GitHub counts as a write. Anything it
// cannot read counts as one: a write is never undercounted.
func isGraphQLMutation(body []byte) bool {
	var req struct {
		Query *string `json:"query"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Query == nil {
		return true
	}
	return hasMutation(*req.Query)
}

// hasMutation reports whether a GraphQL document defines a mutation: the
// word "mutation" at the top level (outside any selection set, string or
// comment). A document it cannot make sense of (unbalanced braces, an
// unterminated string) counts as one.
func hasMutation(doc string) bool {
	depth := 0
	for i := 0; i < len(doc); {
		c := doc[i]
		switch {
		case c == '#':
			for i < len(doc) && doc[i] != '\n' && doc[i] != '\r' {
				i++
			}
		case c == '"':
			end, ok := skipString(doc, i)
			if !ok {
				return true
			}
			i = end
		case c == '{':
			depth++
			i++
		case c == '}':
			if depth == 0 {
				return true
			}
			depth--
			i++
		case isNameStart(c):
			j := i
			for j < len(doc) && isNameChar(doc[j]) {
				j++
			}
			if depth == 0 && doc[i:j] == "mutation" {
				return true
			}
			i = j
		default:
			i++
		}
	}
	return depth != 0
}

// skipString returns the index after the string starting at doc[i] (a
// block string """…""" or a quoted one with escapes); ok is false when it
// does not end.
func skipString(doc string, i int) (int, bool) {
	if len(doc) >= i+3 && doc[i:i+3] == `"""` {
		for j := i + 3; j+3 <= len(doc); j++ {
			if doc[j] == '\\' && j+4 <= len(doc) && doc[j+1:j+4] == `"""` {
				j += 3
				continue
			}
			if doc[j:j+3] == `"""` {
				return j + 3, true
			}
		}
		return len(doc), false
	}
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		case '\n', '\r':
			return len(doc), false
		}
	}
	return len(doc), false
}

func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isNameChar(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }
