// Package textsafe turns untrusted text into text that is safe on the
// surfaces the bot writes: GitHub markdown (sticky and failure comments,
// check-run summaries, test-PR bodies, alerts) and Slack mrkdwn (the chat
// line of notifications). It also validates the URLs CI systems report.
//
// Untrusted means chosen by someone other than the operator: a commit
// status's context, description and target_url (code on a fork PR's test
// branch can post them), check-run names and URLs, pull request titles,
// branch and file names, and logins where a free-form string may stand in
// for one. Such text is stored as it came (plain text, URLs validated) and
// escaped when it is rendered, by the escaper of the surface it lands on:
//
//   - Markdown and MarkdownCode: shown as its literal characters, never as
//     a link, image, mention, reference, HTML, emphasis or block.
//   - MarkdownKeepingRefs: the same, but #123 stays a reference (for the
//     queue's state details, whose own wording names PRs).
//   - MarkdownMention: @login only for a valid GitHub login.
//   - Slack: shown literally, never as a mention, link or special command.
//   - CIURL: an absolute http(s) URL without credentials, or nothing.
//
// The package imports only the standard library, so every layer (queue
// service, handlers, githubx, notify) can use it.
package textsafe
