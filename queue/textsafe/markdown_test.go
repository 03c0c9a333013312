package textsafe

import (
	"strings"
	"testing"
)

func TestMarkdown(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"plain", "required check ci/test failed", "required check ci/test failed"},
		{"team mention", "ping @org/team", "ping @&#8203;org/team"},
		{"user mention and email", "@alice a@b.example", "@&#8203;alice a@&#8203;b.example"},
		{"issue reference", "fixes #12 and acme/x#3", "fixes #&#8203;12 and acme/x#&#8203;3"},
		{"link", "[click](http://evil)", `\[click\]\(<http://evil>\)`},
		{"image", "![x](http://evil/x.png)", `\!\[x\]\(<http://evil/x.png>\)`},
		{"link tail", "](http://evil)", `\]\(<http://evil>\)`},
		{"URL running on not linked", "https://ci.example/x(y)", `https://ci.example/x\(y\)`},
		{"html", "<img src=x onerror=alert(1)>", `\<img src=x onerror=alert\(1\)\>`},
		{"slack command", "<!channel>", `\<\!channel\>`},
		{"entity", "&#64;org/team &amp;", `\&#&#8203;64;org/team \&amp;`},
		{"backticks and emphasis", "`x` *b* _i_ ~s~", "\\`x\\` \\*b\\* \\_i\\_ \\~s\\~"},
		{"table pipe", "a | b", `a \| b`},
		{"math", "$x$", "&#36;x&#36;"},
		{"line breaks", "a\nb\r\nc\u2028d", "a b  c d"},
		{"bidi override", "a\u202eb", "a b"},
		{"heading at start", "# title", "#&#8203; title"},
		{"list at start", "- item", `\- item`},
		{"ordered list at start", "12. item", `12\. item`},
		{"quote at start", "> q", `\> q`},
		{"indent at start", "    code", "&#32;   code"},
		{"hyphen inside", "ci-test v1.2", "ci-test v1.2"},
		{"backslash", `a\`, `a\\`},
		{"valid URL linked", "failed (failure): https://ci.example/b/1.", "failed \\(failure\\): <https://ci.example/b/1>."},
		{"URL in parentheses", "(see https://ci.example/b/1)", "\\(see <https://ci.example/b/1>\\)"},
		{"javascript URL not linked", "javascript:alert(1)", `javascript:alert\(1\)`},
		{"non-canonical URL not linked", "HTTPS://CI.example/x", "HTTPS://CI.example/x"},
		{"URL with userinfo not linked", "https://u@evil.example/", "https://u@&#8203;evil.example/"},
		{"empty", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := Markdown(c.in)
			if got != c.want {
				t.Errorf("Markdown(%q) =\n %q, want\n %q", c.in, got, c.want)
			}
			if vis, err := visibleMarkdown(got); err != nil || vis != OneLine(c.in) {
				t.Errorf("visible text of %q: %q, %v; want %q", got, vis, err, OneLine(c.in))
			}
		})
	}
}

func TestMarkdownCode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"plain", "main", "`main`"},
		{"backtick inside", "a`b", "``a`b``"},
		{"backtick at the ends", "`x``", "``` `x`` ```"},
		{"spaces at both ends", " x ", "`  x  `"},
		{"only spaces", "  ", "`  `"},
		{"mention stays code", "@org/team <!channel>", "`@org/team <!channel>`"},
		{"line break", "a\nb", "`a b`"},
		{"empty", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := MarkdownCode(c.in)
			if got != c.want {
				t.Errorf("MarkdownCode(%q) = %q, want %q", c.in, got, c.want)
			}
			if vis, err := visibleCode(got); err != nil || vis != OneLine(c.in) {
				t.Errorf("visible text of %q: %q, %v; want %q", got, vis, err, OneLine(c.in))
			}
		})
	}
}

func TestMarkdownMention(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"alice":                 "@alice",
		"a-b-9":                 "@a-b-9",
		"dependabot[bot]":       "@dependabot[bot]",
		"org/team":              "org/team",
		"@org/team":             "@&#8203;org/team",
		"-x":                    `\-x`,
		"two words":             "two words",
		"":                      "",
		strings.Repeat("a", 40): strings.Repeat("a", 40),
	} {
		if got := MarkdownMention(in); got != want {
			t.Errorf("MarkdownMention(%q) = %q, want %q", in, got, want)
		}
	}
}

var markdownSeeds = []string{
	"", "plain text", "@org/team", "](http://evil)", "![x](http://evil/x.png)", "<!channel>", "javascript:alert(1)",
	"# h", "12. x", " x", "a\nb", "`code`", "$x$", "&#64;", "https://ci.example/b/1.", "(https://ci.example/x_y)",
	"https://ci.example/a#b#c", "http://h", "\xff\xfe", "a\u202eb", "- x", "\\", "x@y#1", "<http://x|y>",
}

// FuzzMarkdownEscape: Markdown's output holds no raw markdown syntax (no
// link, image, HTML, entity, code, emphasis, math, table or block start),
// no @ or # that GitHub could read as a mention or reference, autolinks
// only to canonical CI URLs, and shows exactly OneLine(input); so does
// MarkdownKeepingRefs's, but for '#' before a digit.
func FuzzMarkdownEscape(f *testing.F) {
	for _, s := range markdownSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Markdown(s)
		vis, err := visibleMarkdown(out)
		if err != nil {
			t.Fatalf("Markdown(%q) = %q: %v", s, out, err)
		}
		if want := OneLine(s); vis != want {
			t.Fatalf("Markdown(%q) = %q shows %q, want %q", s, out, vis, want)
		}
		out = MarkdownKeepingRefs(s)
		if vis, err = visibleMarkdownRefs(out, true); err != nil || vis != OneLine(s) {
			t.Fatalf("MarkdownKeepingRefs(%q) = %q shows %q (%v), want %q", s, out, vis, err, OneLine(s))
		}
	})
}

func TestMarkdownKeepingRefs(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"conflicts with #12 ahead":   "conflicts with #12 ahead",
		"#12 at the start":           "#12 at the start",
		"# heading":                  "#&#8203; heading",
		"#x @org/team [a](http://e)": "#&#8203;x @&#8203;org/team \\[a\\]\\(<http://e>\\)",
		"acme/w#3":                   "acme/w#3",
	} {
		got := MarkdownKeepingRefs(in)
		if got != want {
			t.Errorf("MarkdownKeepingRefs(%q) = %q, want %q", in, got, want)
		}
		if vis, err := visibleMarkdownRefs(got, true); err != nil || vis != in {
			t.Errorf("visible text of %q: %q, %v", got, vis, err)
		}
	}
}

// FuzzMarkdownCode: MarkdownCode's output is one code span (or nothing)
// showing exactly OneLine(input).
func FuzzMarkdownCode(f *testing.F) {
	for _, s := range append(markdownSeeds, "``", " ` ", "` a `", "   ") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := MarkdownCode(s)
		vis, err := visibleCode(out)
		if err != nil {
			t.Fatalf("MarkdownCode(%q) = %q: %v", s, out, err)
		}
		if want := OneLine(s); vis != want {
			t.Fatalf("MarkdownCode(%q) = %q shows %q, want %q", s, out, vis, want)
		}
	})
}
