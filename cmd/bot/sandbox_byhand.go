package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mergequeue/mq/app/sandbox"
	"github.com/mergequeue/mq/queue"
)

// handBranches are prepared by the demo for a person to open as pull
// requests by hand: the first queued by a comment, the second by label.
var handBranches = []struct {
	branch, title string
	files         map[string]string
}{
	{"try-comment", "Say hello", map[string]string{"hello.go": "package main\n\nconst hello = \"hello\"\n"}},
	{"try-label", "Say goodbye", map[string]string{"goodbye.go": "package main\n\nconst goodbye = \"goodbye\"\n"}},
}

// handCommand is one call to the fake GitHub's API a person can paste into
// a shell: curl, the user's token, a JSON body without single quotes.
type handCommand struct {
	comment string // printed above the command
	method  string // "" = POST
	path    string // under the repository's API URL
	body    any    // marshalled to JSON
}

// byHand lists the calls that open a PR from each prepared branch and
// queue the first by a `/mq merge` comment and the second by the enqueue
// label, then make a change of one's own. next is the number the fake
// GitHub gives the next PR; mainSHA is main's head.
func byHand(next int, mainSHA, label string) []handCommand {
	pr := func(title, head string) map[string]string {
		return map[string]string{"title": title, "head": head, "base": "main"}
	}
	notes := base64.StdEncoding.EncodeToString([]byte("Notes of my own.\n"))
	return []handCommand{
		{comment: fmt.Sprintf("open a pull request from the prepared branch %s (it becomes #%d)", handBranches[0].branch, next),
			path: "/pulls", body: pr(handBranches[0].title, handBranches[0].branch)},
		{comment: fmt.Sprintf("queue #%d with a comment", next),
			path: fmt.Sprintf("/issues/%d/comments", next), body: map[string]string{"body": "/mq merge"}},
		{comment: fmt.Sprintf("open one from %s (#%d) and queue it with the %q label", handBranches[1].branch, next+1, label),
			path: "/pulls", body: pr(handBranches[1].title, handBranches[1].branch)},
		{path: fmt.Sprintf("/issues/%d/labels", next+1), body: map[string][]string{"labels": {label}}},
		{comment: "a change of your own: a branch from main, a file on it, a pull request (then queue it as above)",
			path: "/git/refs", body: map[string]string{"ref": "refs/heads/my-change", "sha": mainSHA}},
		{method: "PUT", path: "/contents/NOTES.md",
			body: map[string]string{"message": "Add notes", "content": notes, "branch": "my-change"}},
		{path: "/pulls", body: pr("Add notes", "my-change")},
	}
}

// curl renders c as a command line against the repository API URL repoAPI.
func (c handCommand) curl(repoAPI, token string) string {
	body, _ := json.Marshal(c.body) // maps of strings always marshal
	method := ""
	if c.method != "" {
		method = " -X " + c.method
	}
	return fmt.Sprintf("curl -s%s -H 'authorization: token %s' %s%s -d '%s'", method, token, repoAPI, c.path, body)
}

// printByHand tells a person how to go on once the demo is over: the
// user's token for the fake GitHub and the commands of byHand.
func printByHand(out io.Writer, env *sandbox.Env, token string, next int) error {
	mainSHA, err := env.Fake.BranchSHA(demoOwner, demoRepo, "main")
	if err != nil {
		return fmt.Errorf("failed to read main of %s/%s: %w", demoOwner, demoRepo, err)
	}
	repoAPI := fmt.Sprintf("%s/repos/%s/%s", env.Fake.URL(), demoOwner, demoRepo)
	var b strings.Builder
	fmt.Fprintf(&b, `
The demo is over; the sandbox keeps running. Go on by hand as %[1]s, who has
write access to %[2]s/%[3]s: the fake GitHub's API takes her token
%[4]s
(pull requests, comments, labels and pushes made with it are hers). Paste:

`, demoUser, demoOwner, demoRepo, token)
	for _, c := range byHand(next, mainSHA, queue.DefaultSettings().EnqueueingLabel) {
		if c.comment != "" {
			fmt.Fprintf(&b, "  # %s\n", c.comment)
		}
		fmt.Fprintf(&b, "  %s\n", c.curl(repoAPI, token))
	}
	fmt.Fprintf(&b, "\nEach one shows up here, and on the dashboard (%s/).\n\n", env.URL)
	_, err = io.WriteString(out, b.String())
	return err
}
