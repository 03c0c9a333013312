package handlers

import (
	"context"
	"strings"
	"testing"
)

// hostileWords are what a commenter could make the bot post if replies
// repeated their text: a mention, an image, a link, a code span.
var hostileWords = []string{"@someone", "![img](http://x)", "[link](http://x)", "`evil`"}

// Issue #15: refusal and error replies to a comment full of markdown
// repeat none of it: no mention, image, link or backticked text of the
// commenter's reaches the reply.
func TestRepliesEchoNoCommenterText(t *testing.T) {
	t.Parallel()
	all := strings.Join(hostileWords, " ")
	for _, tc := range []struct{ name, login, body, want string }{
		{"unknown command", "writer", "/mq " + all, "@writer unknown command."},
		{"unknown command from a reader", "reader", "/mq " + all, "@reader you need write access to this repository to use `/mq` commands."},
		{"image as command", "writer", "/mq ![img](http://x)", "@writer unknown command."},
		{"link as command", "reader", "/mq [link](http://x)", "@reader you need write access to this repository to use `/mq` commands."},
		{"code span as command", "writer", "/mq `evil`", "@writer unknown command."},
		{"mention as priority", "writer", "/mq merge -p @someone", "@writer unknown priority: use urgent"},
		{"link as priority", "writer", "/mq merge --priority=[link](http://x)", "@writer unknown priority: use urgent"},
		{"image as option", "writer", "/mq merge ![img](http://x)", "@writer unknown option."},
		{"code span as option", "writer", "/mq merge `evil`", "@writer unknown option."},
		{"mention as option", "maintainer", "/mq merge --no-batch @someone", "@maintainer unknown option."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			svc, gh := commentWorld()
			h := NewIssueCommentHandler(testConfig(), svc, svc, gh)
			if err := h.Handle(context.Background(), "issue_comment", "d", prComment(t, "created.payload.json", tc.login, tc.body)); err != nil {
				t.Fatal(err)
			}
			assertComment(t, svc, tc.want)
			for _, w := range append(hostileWords, "someone", "http://x", "evil", "](") {
				if strings.Contains(svc.comments[0].Body, w) {
					t.Errorf("reply %q repeats %q", svc.comments[0].Body, w)
				}
			}
			if len(svc.submits) != 0 {
				t.Errorf("submitted %+v", svc.submits)
			}
		})
	}
}

// Plain words are still named, so the reply says what was wrong.
func TestRepliesNameWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ login, body, want string }{
		{"writer", "/mq frobnicate", "@writer unknown command `/mq frobnicate`."},
		{"reader", "/mq frobnicate", "@reader you need write access to this repository to use `/mq frobnicate`."},
		{"writer", "/mq merge --force", "@writer unknown option `--force`."},
		{"writer", "/mq merge -p soon", "@writer unknown priority `soon`: use urgent"},
		{"writer", "/mq merge -p " + strings.Repeat("x", maxEchoWord+1), "@writer unknown priority: use urgent"},
	} {
		svc, gh := commentWorld()
		h := NewIssueCommentHandler(testConfig(), svc, svc, gh)
		if err := h.Handle(context.Background(), "issue_comment", "d", prComment(t, "created.payload.json", tc.login, tc.body)); err != nil {
			t.Fatal(err)
		}
		assertComment(t, svc, tc.want)
	}
}

// replyChars are the characters the reply templates themselves use
// outside the usage text (with "/mq" as prefix).
const replyChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -`.,:/\n"

// FuzzCommandReplies: whatever a comment says, the replies to its command
// (refusal, unknown command, bad options) hold nothing but the template's
// own characters and words of at most maxEchoWord plain characters in
// backticks: no mention, link, image, HTML or other markdown.
func FuzzCommandReplies(f *testing.F) {
	for _, seed := range []string{
		"/mq merge", "/mq " + strings.Join(hostileWords, " "), "/mq merge -p @x", "/mq merge --x=<b>",
		"/mq <img src=x>", "/mq merge ![a](b)", "/mq cancel [x](y)", "/mq ``` @a", "/mq MERGE -p Soon", "/mq a\u202eb",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		c, ok := ParseCommand("/mq", body)
		if !ok {
			return
		}
		for _, reply := range []string{
			refusalReply("dev", "/mq", c, AccessWrite),
			unknownCommandReply("dev", "/mq", c),
			badOptionsReply("dev", "/mq", c),
		} {
			rest, found := strings.CutPrefix(reply, "@dev ")
			if !found {
				t.Fatalf("reply %q does not start with the mention of the commenter", reply)
			}
			rest = strings.ReplaceAll(rest, usage("/mq"), "")
			if i := strings.IndexFunc(rest, func(r rune) bool { return !strings.ContainsRune(replyChars, r) }); i >= 0 {
				t.Fatalf("reply %q holds %q, which the templates never write", reply, rest[i:])
			}
			spans := strings.Split(rest, "`")
			if len(spans)%2 == 0 {
				t.Fatalf("reply %q has an unpaired backtick", reply)
			}
			for i := 1; i < len(spans); i += 2 {
				word := strings.TrimPrefix(strings.TrimPrefix(spans[i], "/mq"), " ")
				if len(word) > maxEchoWord+len("merge --direct") {
					t.Fatalf("reply %q quotes %q", reply, spans[i])
				}
			}
		}
	})
}
