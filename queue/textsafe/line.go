package textsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// breaksLine reports whether r must not survive into one-line output: a
// control character (line feeds, carriage returns, tabs and the rest of C0
// and C1), a Unicode line or paragraph separator, or a bidirectional
// embedding, override or isolate (which can reorder what a reader sees).
func breaksLine(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r == '\u2028', r == '\u2029':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// OneLine is s made one line of valid UTF-8: every rune breaksLine
// refuses becomes a space, every invalid byte U+FFFD. The escapers apply
// it first, so their output never spans lines.
func OneLine(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || breaksLine(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if breaksLine(r) {
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}
