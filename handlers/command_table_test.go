package handlers

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// helpOption is "[-p|--priority <value>]" in a synopsis line.
var helpOption = regexp.MustCompile(`^\[([^\] ]+)(?: (<[^>]+>))?\]$`)

// The help lists every command and option of the command table and
// nothing else, says of each what the table says, and every synopsis it
// shows parses as the command it names.
func TestHelpListsTheCommandTable(t *testing.T) {
	t.Parallel()
	const prefix = "/mq"
	help := usage(prefix)
	head, rest, ok := strings.Cut(help, "```\n")
	if !ok || head != "Usage:\n" {
		t.Fatalf("help does not open with a usage block:\n%s", help)
	}
	block, rest, ok := strings.Cut(rest, "```\n")
	if !ok {
		t.Fatalf("help's usage block is not closed:\n%s", help)
	}

	// The synopsis: one line per command, in the table's order, with its
	// options in brackets.
	lines := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
	if len(lines) != len(commandTable) {
		t.Fatalf("help shows %d commands, the table has %d:\n%s", len(lines), len(commandTable), block)
	}
	for i, line := range lines {
		spec := commandTable[i]
		words := strings.Fields(line)
		if len(words) < 2 || words[0] != prefix || words[1] != string(spec.Kind) {
			t.Errorf("synopsis line %d is %q, want %s %s ...", i, line, prefix, spec.Kind)
			continue
		}
		opts := splitOptions(t, strings.Join(words[2:], " "))
		if len(opts) != len(spec.Options) {
			t.Errorf("%s: help shows options %q, the table has %d", spec.Kind, opts, len(spec.Options))
			continue
		}
		for j, o := range opts {
			m := helpOption.FindStringSubmatch(o)
			want := spec.Options[j]
			if m == nil || !slices.Equal(strings.Split(m[1], "|"), want.Names) || m[2] != want.Value {
				t.Errorf("%s: help shows option %q, the table %v %q", spec.Kind, o, want.Names, want.Value)
			}
		}
		checkSynopsisParses(t, prefix, spec)
	}

	// What each command does: one bullet per command, its Doc, then each
	// option's long name with its Doc; then the access rule, and nothing
	// else.
	bullets, tail, _ := strings.Cut(rest, "\n\n")
	if tail != "Commands need write access to the repository." {
		t.Errorf("help ends with %q", tail)
	}
	got := strings.Split(bullets, "\n")
	for i, spec := range commandTable {
		want := "- `" + string(spec.Kind) + "` " + spec.Doc + "."
		if len(spec.Options) > 0 {
			var docs []string
			for _, o := range spec.Options {
				docs = append(docs, "`"+o.Names[len(o.Names)-1]+"` "+o.Doc)
			}
			want += " " + strings.Join(docs, ", ") + "."
		}
		if i >= len(got) || got[i] != want {
			t.Errorf("help's line %d is not the table's\n%s", i, want)
		}
	}
	if len(got) != len(commandTable) {
		t.Errorf("help describes %d commands, the table has %d:\n%s", len(got), len(commandTable), bullets)
	}
}

// splitOptions splits "[a b] [c]" into its bracketed options.
func splitOptions(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	for s != "" {
		end := strings.Index(s, "]")
		if !strings.HasPrefix(s, "[") || end < 0 {
			t.Fatalf("synopsis options %q are not all in brackets", s)
		}
		out = append(out, s[:end+1])
		s = strings.TrimPrefix(s[end+1:], " ")
	}
	return out
}

// checkSynopsisParses parses the command alone and with each option (each
// value its placeholder offers): the parser takes all of them.
func checkSynopsisParses(t *testing.T, prefix string, spec commandSpec) {
	t.Helper()
	lines := []string{prefix + " " + string(spec.Kind)}
	for _, o := range spec.Options {
		values := []string{""}
		if o.Value != "" {
			values = nil
			for _, v := range strings.Split(strings.Trim(o.Value, "<>"), "|") {
				if lo, hi, isRange := strings.Cut(v, "-"); isRange {
					values = append(values, lo, hi)
				} else {
					values = append(values, v)
				}
			}
		}
		for _, name := range o.Names {
			for _, v := range values {
				lines = append(lines, strings.TrimSpace(prefix+" "+string(spec.Kind)+" "+name+" "+v))
			}
		}
	}
	for _, line := range lines {
		c, ok := ParseCommand(prefix, line)
		if !ok || c.Kind != spec.Kind || c.Err != "" {
			t.Errorf("the help's %q parses as %+v, %v", line, c, ok)
		}
	}
}

// Only the table's commands are commands: any other word is unknown.
func TestOnlyTableCommandsParse(t *testing.T) {
	t.Parallel()
	for _, word := range []string{"rebase", "retry", "merged", "priority", "unknown"} {
		if c, _ := ParseCommand("/mq", "/mq "+word); c.Kind != CmdUnknown {
			t.Errorf("/mq %s parses as %+v, want an unknown command", word, c)
		}
	}
}
