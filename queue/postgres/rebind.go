package postgres

import (
	"strconv"
	"strings"
)

// Rebind rewrites the SQLite placeholders the shared statements are
// written with into PostgreSQL's: "?N" becomes "$N", and a bare "?" takes
// the number one above the largest given so far (SQLite's rule), so
// "a = ? AND b = ?" becomes "a = $1 AND b = $2". A "?" inside a string
// literal ('...'), a quoted identifier ("...") or a comment (-- or /* */)
// is left alone; every other character is copied as it is.
func Rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 8)
	highest := 0
	for i := 0; i < len(query); {
		c := query[i]
		switch {
		case c == '\'' || c == '"':
			j := skipQuoted(query, i, c)
			b.WriteString(query[i:j])
			i = j
		case c == '-' && strings.HasPrefix(query[i:], "--"):
			j := strings.IndexByte(query[i:], '\n')
			if j < 0 {
				j = len(query) - i
			}
			b.WriteString(query[i : i+j])
			i += j
		case c == '/' && strings.HasPrefix(query[i:], "/*"):
			j := strings.Index(query[i+2:], "*/")
			end := len(query)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(query[i:end])
			i = end
		case c == '?':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			n := highest + 1
			if j > i+1 {
				if v, err := strconv.Atoi(query[i+1 : j]); err == nil && v > 0 {
					n = v
				} else {
					// Not a placeholder SQLite numbers ("?0", too large):
					// copied as written, for the server to refuse.
					b.WriteString(query[i:j])
					i = j
					continue
				}
			}
			highest = max(highest, n)
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// skipQuoted returns the index just after the quoted text starting at
// query[i] (quote q, doubled inside to escape it), or len(query) when it
// is not closed.
func skipQuoted(query string, i int, q byte) int {
	for j := i + 1; j < len(query); j++ {
		if query[j] != q {
			continue
		}
		if j+1 < len(query) && query[j+1] == q {
			j++
			continue
		}
		return j + 1
	}
	return len(query)
}
