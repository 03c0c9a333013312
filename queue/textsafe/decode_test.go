package textsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The decoders below are the tests' reading of the escapers' output, as
// strict as the escapers' guarantees: they return the text a reader sees,
// or an error at the first character that markdown or Slack could read as
// syntax.

// markdownActive are the characters that may not appear raw in Markdown's
// output (beyond '@' and '#', which need a zero-width space after them).
const markdownActive = markdownPunct + "$\n\r"

// visibleMarkdown decodes Markdown's output.
func visibleMarkdown(out string) (string, error) { return visibleMarkdownRefs(out, false) }

// visibleMarkdownRefs decodes Markdown's output, or with refs
// MarkdownKeepingRefs's, where '#' may stand raw before a digit.
func visibleMarkdownRefs(out string, refs bool) (string, error) {
	var b strings.Builder
	for i := 0; i < len(out); {
		rest := out[i:]
		switch c := out[i]; {
		case c == '\\':
			if len(rest) < 2 || !strings.ContainsRune(markdownPunct+"-+=.", rune(rest[1])) {
				return "", fmt.Errorf("byte %d: stray backslash in %q", i, out)
			}
			b.WriteByte(rest[1])
			i += 2
		case refs && c == '#' && len(rest) > 1 && '0' <= rest[1] && rest[1] <= '9':
			b.WriteByte(c)
			i++
		case c == '@' || c == '#':
			if !strings.HasPrefix(rest[1:], zwsp) {
				return "", fmt.Errorf("byte %d: %c without a zero-width space in %q", i, c, out)
			}
			b.WriteByte(c)
			i += 1 + len(zwsp)
		case c == '&':
			switch {
			case strings.HasPrefix(rest, dollar):
				b.WriteByte('$')
				i += len(dollar)
			case i == 0 && strings.HasPrefix(rest, leadingSpace):
				b.WriteByte(' ')
				i += len(leadingSpace)
			default:
				return "", fmt.Errorf("byte %d: raw & in %q", i, out)
			}
		case c == '<':
			end := strings.IndexByte(rest, '>')
			if end < 0 {
				return "", fmt.Errorf("byte %d: raw < in %q", i, out)
			}
			u := rest[1:end]
			if CIURL(u) != u {
				return "", fmt.Errorf("byte %d: autolink to %q, which is not a canonical CI URL", i, u)
			}
			b.WriteString(u)
			i += end + 1
		case strings.IndexByte(markdownActive, c) >= 0:
			return "", fmt.Errorf("byte %d: raw %q in %q", i, c, out)
		default:
			r, size := utf8.DecodeRuneInString(rest)
			if r == utf8.RuneError && size == 1 || breaksLine(r) {
				return "", fmt.Errorf("byte %d: %q does not belong in one line of UTF-8", i, r)
			}
			b.WriteString(rest[:size])
			i += size
		}
	}
	if out != "" {
		switch out[0] {
		case ' ', '\t', '-', '+', '=', '>', '|', '*', '_', '`', '~':
			return "", fmt.Errorf("output starts with a raw %q, which can start a block: %q", out[0], out)
		}
		if orderedListDot(out) >= 0 {
			return "", fmt.Errorf("output starts with an ordered list marker: %q", out)
		}
	}
	return b.String(), nil
}

// visibleCode decodes MarkdownCode's output by CommonMark's code span
// rules.
func visibleCode(out string) (string, error) {
	if out == "" {
		return "", nil
	}
	n := 0
	for n < len(out) && out[n] == '`' {
		n++
	}
	fence := out[:n]
	if n == 0 || len(out) < 2*n || !strings.HasSuffix(out, fence) {
		return "", fmt.Errorf("not one code span: %q", out)
	}
	inner := out[n : len(out)-n]
	if strings.HasSuffix(inner, "`") {
		return "", fmt.Errorf("the closing fence is longer than the opening one: %q", out)
	}
	for i := 0; i < len(inner); {
		j := i
		for j < len(inner) && inner[j] == '`' {
			j++
		}
		if j-i == n {
			return "", fmt.Errorf("the span closes early at byte %d: %q", n+i, out)
		}
		if j == i {
			j++
		}
		i = j
	}
	if strings.ContainsAny(inner, "\n\r") {
		return "", fmt.Errorf("line break in a code span: %q", out)
	}
	if len(inner) >= 2 && inner[0] == ' ' && inner[len(inner)-1] == ' ' && strings.Trim(inner, " ") != "" {
		inner = inner[1 : len(inner)-1]
	}
	return inner, nil
}

// visibleSlack decodes Slack's output.
func visibleSlack(out string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(out); {
		rest := out[i:]
		switch c := out[i]; c {
		case '<', '>', '\n', '\r':
			return "", fmt.Errorf("byte %d: raw %q in %q", i, c, out)
		case '&':
			ok := false
			for _, e := range []struct{ ent, ch string }{{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}} {
				if strings.HasPrefix(rest, e.ent) {
					b.WriteString(e.ch)
					i += len(e.ent)
					ok = true
					break
				}
			}
			if !ok {
				return "", fmt.Errorf("byte %d: raw & in %q", i, out)
			}
		case '@':
			if !strings.HasPrefix(rest[1:], slackZWSP) {
				return "", fmt.Errorf("byte %d: @ without a zero-width space in %q", i, out)
			}
			b.WriteByte('@')
			i += 1 + len(slackZWSP)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}
