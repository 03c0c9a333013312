package handlers

import (
	"fmt"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/textsafe"
)

// Replies never repeat free text from the commenter: a command word or an
// option is named only when echoWord accepts it, so no comment can make
// the bot post a mention, link, image or other markdown of its choosing.

// maxEchoWord is the longest word a reply repeats.
const maxEchoWord = 20

// echoWord is s in backticks when it is a plain word a reply may repeat:
// 1 to maxEchoWord ASCII lower-case letters, digits and hyphens ("merge",
// "--force", "soon", "256"). Anything else is "": the reply then names
// nothing.
func echoWord(s string) string {
	if s == "" || len(s) > maxEchoWord {
		return ""
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return ""
		}
	}
	return "`" + s + "`"
}

// joinWords joins a phrase and an echoed word ("" leaves the phrase).
func joinWords(phrase, word string) string {
	if word == "" {
		return phrase
	}
	return phrase + " " + word
}

// commandLine names the command c as "`<prefix> <name>`", or only the
// prefix when the name is not a word echoWord accepts.
func commandLine(prefix string, c Command) string {
	if c.Name == "" || echoWord(c.Name) == "" {
		return "`" + prefix + "`"
	}
	return "`" + prefix + " " + c.Name + "`"
}

func refusalReply(login, prefix string, c Command, level Access) string {
	what := commandLine(prefix, c)
	switch {
	case c.Kind == CmdMerge && c.Direct:
		what = "`" + prefix + " merge --direct`"
	case c.Kind == CmdMerge && c.Urgent():
		what = "the urgent priority"
	case c.Name != "" && echoWord(c.Name) == "":
		what = "`" + prefix + "` commands"
	}
	return fmt.Sprintf("@%s you need %s access to this repository to use %s.", login, level, what)
}

func labelRefusalReply(login, label string) string {
	return fmt.Sprintf("@%s you need write access to this repository to submit a pull request "+
		"with the `%s` label; the label changed nothing.", login, label)
}

func unknownCommandReply(login, prefix string, c Command) string {
	what := "unknown command"
	if echoWord(c.Name) != "" {
		what += " " + commandLine(prefix, c)
	}
	return fmt.Sprintf("@%s %s.\n\n%s", login, what, usage(prefix))
}

func badOptionsReply(login, prefix string, c Command) string {
	return fmt.Sprintf("@%s %s.\n\n%s", login, c.Err, usage(prefix))
}

func noQueueReply(login, branch string) string {
	return fmt.Sprintf("@%s there is no merge queue for branch `%s`.", login, branch)
}

func submitRefusedReply(login, msg string) string {
	return fmt.Sprintf("@%s could not submit this pull request: %s", login, msg)
}

func notQueuedReply(login string) string {
	return fmt.Sprintf("@%s this pull request is not in a merge queue.", login)
}

// queuedEntry is an active entry with the branch of its queue, its 1-based
// position among the queue's admitted entries (0: not admitted) and when it
// is expected to merge (zero: unknown).
type queuedEntry struct {
	Branch   string
	Entry    *queue.Entry
	Position int
	Of       int
	MergeAt  time.Time
}

func statusReply(login string, entries []queuedEntry) string {
	if len(entries) == 0 {
		return notQueuedReply(login)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "@%s this pull request is in %d merge queue(s):\n", login, len(entries))
	for _, qe := range entries {
		e := qe.Entry
		fmt.Fprintf(&b, "- `%s`: **%s** (%s, priority %s)", qe.Branch, e.State, e.StateReason, priorityLabel(e))
		if qe.Position > 0 {
			fmt.Fprintf(&b, ", position %d of %d", qe.Position, qe.Of)
		}
		if !qe.MergeAt.IsZero() {
			fmt.Fprintf(&b, ", expected to merge around %s", qe.MergeAt.UTC().Format("2006-01-02 15:04 UTC"))
		}
		if e.StateReasonDetail != "" {
			b.WriteString(": " + textsafe.MarkdownKeepingRefs(e.StateReasonDetail)) // quotes CI text
		}
		b.WriteString("\n")
	}
	return b.String()
}

func priorityLabel(e *queue.Entry) string {
	if e.PriorityName != "" {
		return fmt.Sprintf("%s/%d", e.PriorityName, e.PriorityValue)
	}
	return fmt.Sprint(e.PriorityValue)
}
