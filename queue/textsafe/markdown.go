package textsafe

import (
	"strings"
	"unicode/utf8"
)

// Entities Markdown writes: a zero-width space after '@' and '#' keeps
// GitHub from reading a mention (@user, @org/team), an e-mail address or
// an issue reference (#123, owner/repo#123) in the rendered text, where
// backslashes no longer help; '$' as an entity never delimits math; a
// leading space as an entity never indents a line into a code block.
const (
	zwsp         = "&#8203;"
	dollar       = "&#36;"
	leadingSpace = "&#32;"
)

// markdownPunct are the characters Markdown always escapes with a
// backslash: each can start or end a link, image, autolink, HTML tag,
// entity, code span, emphasis, strikethrough, table cell or block quote.
const markdownPunct = "\\`*_[]()<>!|~&"

// Markdown escapes untrusted text for GitHub-flavoured markdown, inline or
// at the start of a line. The result is one line (see OneLine) that GitHub
// shows as the text's characters, nothing else:
//
//   - no link, image, HTML tag or entity, code span, emphasis,
//     strikethrough, math, table cell break, heading, list, quote or code
//     block is formed from the text;
//   - no @mention (user or team), e-mail link or #number reference is
//     formed: a zero-width space follows every '@' and '#';
//   - an http(s) URL that CIURL accepts unchanged, standing alone, is
//     written as an autolink (<https://…>) showing the URL itself, wherever
//     it appears (even inside brackets); any other URL-like
//     text is escaped like the rest, so GitHub may at most link it as the
//     visible address it is, never under other text.
//
// Undoing the backslash escapes and the entities it writes, and dropping
// the zero-width space after '@' and '#', gives back OneLine(s).
func Markdown(s string) string { return markdown(s, false) }

// MarkdownKeepingRefs is Markdown except that a '#' followed by a digit is
// left as it is, so "#123" and "owner/repo#123" stay references (links to
// issues and pull requests). For the queue's state details, whose own
// wording names PRs ("conflicts with #12 ahead"); never for text that is
// wholly someone else's, such as a PR title ("fixes #1" would link the
// issue to every test PR). Everything else Markdown guarantees holds.
func MarkdownKeepingRefs(s string) string { return markdown(s, true) }

func markdown(s string, keepRefs bool) string {
	s = OneLine(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	leadDot := orderedListDot(s)
	for i := 0; i < len(s); {
		if n := autolinkAt(s, i); n > 0 {
			b.WriteByte('<')
			b.WriteString(s[i : i+n])
			b.WriteByte('>')
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case keepRefs && r == '#' && i+1 < len(s) && '0' <= s[i+1] && s[i+1] <= '9':
			b.WriteByte('#') // a reference; never a heading, which needs a space after '#'
		case r == '@' || r == '#':
			b.WriteRune(r)
			b.WriteString(zwsp)
		case r == '$':
			b.WriteString(dollar)
		case strings.ContainsRune(markdownPunct, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case i == 0 && r == ' ':
			b.WriteString(leadingSpace)
		case i == 0 && (r == '-' || r == '+' || r == '='), i == leadDot:
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// orderedListDot is the index of the '.' of an ordered list marker that
// starts s ("12. …"), or -1.
func orderedListDot(s string) int {
	i := 0
	for i < len(s) && i < 9 && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && s[i] == '.' {
		return i
	}
	return -1
}

// autolinkAt is the length of the URL starting at s[i] that Markdown
// writes as an autolink, or 0: the longest run of canonical URL characters
// from "http://" or "https://", less trailing sentence punctuation, when
// CIURL keeps it unchanged and it ends the text, a word or a parenthesis
// (text that runs on, as in https://a@b, is not linked at all).
func autolinkAt(s string, i int) int {
	if !strings.HasPrefix(s[i:], "https://") && !strings.HasPrefix(s[i:], "http://") {
		return 0
	}
	j := i
	for j < len(s) && urlSafe(s[j]) {
		j++
	}
	for j > i && strings.IndexByte(".,;:?", s[j-1]) >= 0 {
		j--
	}
	if j < len(s) && strings.IndexByte(" .,;:?)]>\"'", s[j]) < 0 {
		return 0
	}
	if tok := s[i:j]; CIURL(tok) == tok {
		return j - i
	}
	return 0
}

// MarkdownCode renders untrusted text as one inline code span showing its
// characters literally (after OneLine): the fence is longer than any run
// of backticks in the text, and the text is padded with a space where it
// starts or ends with a backtick or a space, which GitHub strips again.
// Nothing inside a code span is a link, mention, reference or HTML. Not
// for table cells, where a '|' would still split the cell. Empty text
// gives "".
func MarkdownCode(s string) string {
	s = OneLine(s)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	if s == "" {
		return ""
	}
	fence := strings.Repeat("`", longest+1)
	if strings.Trim(s, " ") == "" {
		return fence + s + fence
	}
	if s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' && s[len(s)-1] == ' ' {
		s = " " + s + " "
	}
	return fence + s + fence
}

// MarkdownMention is "@login" when login is a valid GitHub login (1 to 39
// letters, digits and hyphens, not starting with a hyphen, optionally
// followed by "[bot]"), so GitHub notifies that account; any other string is escaped
// with Markdown and notifies no one (never a team, never @org/team).
func MarkdownMention(login string) string {
	if validLogin(login) {
		return "@" + login
	}
	return Markdown(login)
}

func validLogin(s string) bool {
	s = strings.TrimSuffix(s, "[bot]")
	if s == "" || len(s) > 39 || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
