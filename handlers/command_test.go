package handlers

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		prefix string
		body   string
		want   Command
		wantOK bool
	}{
		{"plain merge", "", "/mq merge", Command{Kind: CmdMerge, Name: "merge"}, true},
		{"short priority", "", "/mq merge -p high", Command{Kind: CmdMerge, Name: "merge", Priority: "high"}, true},
		{"long priority with =", "", "/mq merge --priority=LOW", Command{Kind: CmdMerge, Name: "merge", Priority: "low"}, true},
		{"numeric priority normalised", "", "/mq merge --priority 007", Command{Kind: CmdMerge, Name: "merge", Priority: "7"}, true},
		{"urgent as zero", "", "/mq merge -p 0", Command{Kind: CmdMerge, Name: "merge", Priority: "0"}, true},
		{"all flags", "", "/mq merge --no-batch --direct -p urgent", Command{Kind: CmdMerge, Name: "merge", Priority: "urgent", NoBatch: true, Direct: true}, true},
		{"case-insensitive prefix and name", "", "/MQ Merge", Command{Kind: CmdMerge, Name: "merge"}, true},
		{"command in a later line", "", "LGTM, thanks!\r\n  /mq cancel  \r\nbye", Command{Kind: CmdCancel, Name: "cancel"}, true},
		{"first command wins", "", "/mq status\n/mq merge", Command{Kind: CmdStatus, Name: "status"}, true},
		{"tab after prefix", "", "/mq\tstatus", Command{Kind: CmdStatus, Name: "status"}, true},
		{"restart", "", "/mq restart", Command{Kind: CmdRestart, Name: "restart"}, true},
		{"help", "", "/mq help", Command{Kind: CmdHelp, Name: "help"}, true},
		{"bare prefix is help", "", "/mq", Command{Kind: CmdHelp}, true},
		{"unknown subcommand", "", "/mq rebase now", Command{Kind: CmdUnknown, Name: "rebase"}, true},
		{"priority out of range", "", "/mq merge -p 256", Command{Kind: CmdMerge, Name: "merge", Err: "unknown priority `256`: use urgent, high, medium, low or a number 0-255"}, true},
		{"negative priority", "", "/mq merge -p -1", Command{Kind: CmdMerge, Name: "merge", Err: "unknown priority `-1`: use urgent, high, medium, low or a number 0-255"}, true},
		{"missing priority", "", "/mq merge -p", Command{Kind: CmdMerge, Name: "merge", Err: "`-p` needs a priority: urgent, high, medium, low or a number 0-255"}, true},
		{"unknown option", "", "/mq merge --force", Command{Kind: CmdMerge, Name: "merge", Err: "unknown option `--force`"}, true},
		{"flag with value", "", "/mq merge --direct=yes", Command{Kind: CmdMerge, Name: "merge", Err: "`--direct` takes no value"}, true},
		{"cancel with arguments", "", "/mq cancel now", Command{Kind: CmdCancel, Name: "cancel", Err: "`cancel` takes no arguments"}, true},
		{"custom prefix", "@bot", "@bot merge", Command{Kind: CmdMerge, Name: "merge"}, true},
		{"default prefix off with custom", "@bot", "/mq merge", Command{}, false},
		{"no command", "", "Looks good to me.", Command{}, false},
		{"empty", "", "", Command{}, false},
		{"prefix glued to a word", "", "/mqmerge", Command{}, false},
		{"prefix mid-line", "", "please /mq merge", Command{}, false},
		{"quoted line", "", "> /mq merge\nthanks", Command{}, false},
		{"inside a code fence", "", "```\n/mq merge\n```", Command{}, false},
		{"after a code fence", "", "```\n/mq merge\n```\n/mq status", Command{Kind: CmdStatus, Name: "status"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ParseCommand(tt.prefix, tt.body)
			if ok != tt.wantOK || got != tt.want {
				t.Fatalf("ParseCommand(%q) = %+v, %v; want %+v, %v", tt.body, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestRequiredAccess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want Access
	}{
		{"/mq merge", AccessWrite},
		{"/mq merge -p high --no-batch", AccessWrite},
		{"/mq merge -p 1", AccessWrite},
		{"/mq merge -p urgent", AccessAdmin},
		{"/mq merge -p 000", AccessAdmin},
		{"/mq merge --direct", AccessAdmin},
		{"/mq cancel", AccessWrite},
		{"/mq status", AccessWrite},
		{"/mq bogus --direct", AccessWrite},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			t.Parallel()
			c, _ := ParseCommand("", tt.body)
			if got := requiredAccess(c); got != tt.want {
				t.Fatalf("requiredAccess = %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzParseCommand checks that the parser never panics, yields only known
// kinds and canonical priorities, and that a clean command survives Format.
func FuzzParseCommand(f *testing.F) {
	for _, seed := range []string{
		"/mq merge", "/mq merge -p urgent --no-batch --direct", "/mq merge --priority=255",
		"/mq merge -p", "/mq cancel", "/mq restart", "/mq status", "/mq help", "/mq", "/mq ???",
		"text\n/MQ MERGE -p 010\n/mq cancel", "```\n/mq merge\n```", "> /mq merge", "/mq\u00a0merge",
		"/mq merge -p 0x1", "/mq merge --priority= ", "\xff/mq merge", "/mq \xffmerge",
	} {
		f.Add("/mq", seed)
	}
	f.Add("@bot", "@bot merge")
	f.Add("", "/mq merge")
	f.Fuzz(func(t *testing.T, prefix, body string) {
		c, ok := ParseCommand(prefix, body)
		if !ok {
			if c != (Command{}) {
				t.Fatalf("no command but got %+v", c)
			}
			return
		}
		switch c.Kind {
		case CmdMerge, CmdCancel, CmdRestart, CmdStatus, CmdHelp, CmdUnknown:
		default:
			t.Fatalf("unknown kind %q", c.Kind)
		}
		if c.Kind != CmdMerge && (c.Priority != "" || c.NoBatch || c.Direct) {
			t.Fatalf("merge options on %+v", c)
		}
		if c.Priority != "" {
			if p, ok := normalizePriority(c.Priority); !ok || p != c.Priority {
				t.Fatalf("priority %q is not canonical", c.Priority)
			}
		}
		if c.Err != "" || !utf8.ValidString(body) || !utf8.ValidString(prefix) {
			return
		}
		p := prefix
		if p == "" {
			p = DefaultCommandPrefix
		}
		if strings.TrimSpace(p) != p || strings.ContainsAny(p, "\n`~>") {
			return // prefixes that cannot start a trimmed command line
		}
		again, ok := ParseCommand(prefix, c.Format(p))
		if !ok || again != c {
			t.Fatalf("Format(%+v) = %q parses as %+v, %v", c, c.Format(p), again, ok)
		}
	})
}
