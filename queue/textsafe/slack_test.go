package textsafe

import "testing"

func TestSlack(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"plain", "acme/widgets → main: #1 failed — because tests_failed", "acme/widgets → main: #1 failed — because tests_failed"},
		{"channel", "<!channel> <!here>", "&lt;!channel&gt; &lt;!here&gt;"},
		{"user mention", "<@U123>", "&lt;@\u200bU123&gt;"},
		{"link", "<http://evil|click>", "&lt;http://evil|click&gt;"},
		{"plain mentions", "@channel @org/team", "@\u200bchannel @\u200borg/team"},
		{"ampersand", "a & b &amp;", "a &amp; b &amp;amp;"},
		{"line breaks", "a\nb\tc", "a b c"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := Slack(c.in)
			if got != c.want {
				t.Errorf("Slack(%q) = %q, want %q", c.in, got, c.want)
			}
			if vis, err := visibleSlack(got); err != nil || vis != OneLine(c.in) {
				t.Errorf("visible text of %q: %q, %v", got, vis, err)
			}
		})
	}
}

// FuzzSlackEscape: Slack's output holds no raw '<' or '>' (so no special
// command, mention or link), no '&' but the three entities, no '@' a
// server could read as a mention, no line break, and shows exactly
// OneLine(input).
func FuzzSlackEscape(f *testing.F) {
	for _, s := range []string{"", "<!channel>", "<@U123>", "<http://x|y>", "&lt;", "@here", "a\nb", "\xff", "@\u200b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Slack(s)
		vis, err := visibleSlack(out)
		if err != nil {
			t.Fatalf("Slack(%q) = %q: %v", s, out, err)
		}
		if want := OneLine(s); vis != want {
			t.Fatalf("Slack(%q) = %q shows %q, want %q", s, out, vis, want)
		}
	})
}
