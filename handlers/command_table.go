package handlers

import "strings"

// commandSpec is one PR-comment command. commandTable is the one list of
// the commands and their options: ParseCommand accepts exactly what it
// holds, and the help (usage) lists exactly that.
type commandSpec struct {
	// Kind is the command; its name is the word after the prefix.
	Kind CommandKind
	// Doc says what the command does, after its name in the help.
	Doc string
	// Options are the command's options; a command without any takes no
	// arguments.
	Options []optionSpec
}

// optionSpec is one option of a command.
type optionSpec struct {
	// Names are its spellings, the long one last: "-p", "--priority".
	Names []string
	// Value is the placeholder of its value in the help; "" for a switch,
	// which takes none.
	Value string
	// Need completes "`<flag>` needs ..." when the value is missing.
	Need string
	// Doc says what it does, after its long name in the help.
	Doc string
	// set applies the option to c (value is "" for a switch) and returns a
	// message for the user when the value is not one it takes.
	set func(c *Command, value string) string
}

// priorityUse lists the priorities an option value may be.
const priorityUse = "urgent, high, medium, low or a number 0-255"

var commandTable = []commandSpec{
	{Kind: CmdMerge,
		Doc: "submits this pull request to the merge queue of its base branch (again: updates its priority and batching)",
		Options: []optionSpec{
			{Names: []string{"-p", "--priority"}, Value: "<urgent|high|medium|low|0-255>", Need: "a priority: " + priorityUse,
				Doc: "orders it (default medium; urgent needs admin access)", set: setPriority},
			{Names: []string{"--no-batch"}, Doc: "tests it on its own",
				set: func(c *Command, _ string) string { c.NoBatch = true; return "" }},
			{Names: []string{"--direct"}, Doc: "(admin) skips the readiness wait",
				set: func(c *Command, _ string) string { c.Direct = true; return "" }},
		}},
	{Kind: CmdCancel, Doc: "takes it out of every merge queue"},
	{Kind: CmdRestart, Doc: "tests it again, keeping its place in the queue"},
	{Kind: CmdStatus, Doc: "shows where it stands"},
	{Kind: CmdHelp, Doc: "shows this help"},
}

// setPriority sets c's priority from a name or a number 0–255.
func setPriority(c *Command, value string) string {
	p, ok := normalizePriority(value)
	if !ok {
		return joinWords("unknown priority", echoWord(value)) + ": use " + priorityUse
	}
	c.Priority = p
	return ""
}

// commandNamed is the command called name (lower case), if any.
func commandNamed(name string) (commandSpec, bool) {
	for _, s := range commandTable {
		if string(s.Kind) == name {
			return s, true
		}
	}
	return commandSpec{}, false
}

// optionNamed is the option of opts spelt flag, if any.
func optionNamed(opts []optionSpec, flag string) (optionSpec, bool) {
	for _, o := range opts {
		for _, n := range o.Names {
			if n == flag {
				return o, true
			}
		}
	}
	return optionSpec{}, false
}

// usage is the help text for prefix: a synopsis line per command of
// commandTable, then what each command and option does.
func usage(prefix string) string {
	var b strings.Builder
	b.WriteString("Usage:\n```\n")
	for _, s := range commandTable {
		b.WriteString(prefix + " " + string(s.Kind))
		for _, o := range s.Options {
			b.WriteString(" [" + strings.Join(o.Names, "|"))
			if o.Value != "" {
				b.WriteString(" " + o.Value)
			}
			b.WriteString("]")
		}
		b.WriteString("\n")
	}
	b.WriteString("```\n")
	for _, s := range commandTable {
		b.WriteString("- `" + string(s.Kind) + "` " + s.Doc + ".")
		if len(s.Options) > 0 {
			docs := make([]string, len(s.Options))
			for i, o := range s.Options {
				docs[i] = "`" + o.Names[len(o.Names)-1] + "` " + o.Doc
			}
			b.WriteString(" " + strings.Join(docs, ", ") + ".")
		}
		b.WriteString("\n")
	}
	b.WriteString("\nCommands need write access to the repository.")
	return b.String()
}
