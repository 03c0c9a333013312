package handlers

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CommandKind is what a PR-comment command asks for.
type CommandKind string

const (
	CmdMerge   CommandKind = "merge"
	CmdCancel  CommandKind = "cancel"
	CmdRestart CommandKind = "restart"
	CmdStatus  CommandKind = "status"
	CmdHelp    CommandKind = "help"
	// CmdUnknown is a command line whose subcommand we do not know.
	CmdUnknown CommandKind = "unknown"
)

// Command is one parsed command line.
type Command struct {
	Kind CommandKind
	// Name is the subcommand as written, lower-cased ("" for a bare prefix,
	// which is help).
	Name string
	// Priority is "" (default), a lower-case name (urgent, high, medium,
	// low) or a decimal number 0–255 without leading zeros. Merge only.
	Priority string
	NoBatch  bool // merge only
	Direct   bool // merge only
	// Err is a message for the user when the line is a command of a known
	// kind with bad options; the command must then not be acted on. It
	// repeats what the commenter wrote only through echoWord.
	Err string
}

// Urgent reports whether the command asks for the urgent priority (0).
func (c Command) Urgent() bool { return c.Priority == "urgent" || c.Priority == "0" }

var priorityNames = []string{"urgent", "high", "medium", "low"}

// ParseCommand finds the first command line of a comment body: a line whose
// first non-blank text is prefix (compared case-insensitively) followed by
// white space or the end of the line. Lines inside fenced code blocks and
// quoted lines ("> …") are not commands. It reports false when the body has
// no command line. It is a pure function.
func ParseCommand(prefix, body string) (Command, bool) {
	if prefix == "" {
		prefix = DefaultCommandPrefix
	}
	inFence := false
	for line := range strings.Lines(body) {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		rest, ok := cutPrefixFold(trimmed, prefix)
		if !ok {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(rest); rest != "" && !unicode.IsSpace(r) {
			continue
		}
		return parseArgs(strings.Fields(rest)), true
	}
	return Command{}, false
}

// cutPrefixFold is strings.CutPrefix with a case-insensitive prefix.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// parseArgs interprets the words after the prefix, as commandTable says.
func parseArgs(args []string) Command {
	if len(args) == 0 {
		return Command{Kind: CmdHelp}
	}
	name := strings.ToLower(args[0])
	c := Command{Name: name}
	spec, ok := commandNamed(name)
	if !ok {
		c.Kind = CmdUnknown
		return c
	}
	c.Kind = spec.Kind
	if len(spec.Options) == 0 {
		if len(args) > 1 {
			c.Err = "`" + name + "` takes no arguments"
		}
		return c
	}
	parseOptions(&c, spec.Options, args[1:])
	return c
}

// parseOptions applies the options of args ("--flag value", "--flag=value"
// or a switch "--flag"); the first one that is unknown or has a bad or
// missing value sets c.Err and ends the parse.
func parseOptions(c *Command, opts []optionSpec, args []string) {
	for i := 0; i < len(args); i++ {
		flag, value, hasValue := strings.Cut(args[i], "=")
		o, ok := optionNamed(opts, flag)
		if !ok {
			c.Err = joinWords("unknown option", echoWord(args[i]))
			return
		}
		switch {
		case o.Value == "" && hasValue:
			c.Err = "`" + flag + "` takes no value"
			return
		case o.Value != "" && !hasValue:
			if i+1 >= len(args) {
				c.Err = "`" + flag + "` needs " + o.Need
				return
			}
			i++
			value = args[i]
		}
		if msg := o.set(c, value); msg != "" {
			c.Err = msg
			return
		}
	}
}

// normalizePriority canonicalises a priority name or number 0–255.
func normalizePriority(s string) (string, bool) {
	for _, n := range priorityNames {
		if strings.EqualFold(s, n) {
			return n, true
		}
	}
	if s == "" || len(s) > 3 || strings.TrimLeft(s, "0123456789") != "" {
		return "", false
	}
	v, err := strconv.Atoi(s)
	if err != nil || v > 255 {
		return "", false
	}
	return strconv.Itoa(v), true
}

// Format writes c back as a command line with prefix; parsing the result
// gives c again for any command without Err.
func (c Command) Format(prefix string) string {
	var b strings.Builder
	b.WriteString(prefix)
	if c.Kind == CmdUnknown || c.Name != "" {
		b.WriteString(" " + c.Name)
	}
	if c.Priority != "" {
		b.WriteString(" --priority " + c.Priority)
	}
	if c.NoBatch {
		b.WriteString(" --no-batch")
	}
	if c.Direct {
		b.WriteString(" --direct")
	}
	return b.String()
}
