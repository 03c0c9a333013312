package textsafe

import "strings"

// slackZWSP follows every '@' in Slack text.
const slackZWSP = "\u200b"

var slackReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "@", "@"+slackZWSP)

// Slack escapes untrusted text for Slack mrkdwn (and the Slack-compatible
// incoming webhooks of other chat servers). The result is one line (see
// OneLine) without a raw '<' or '>': '&', '<' and '>' are written &amp;,
// &lt; and &gt;, so no <!channel>, <!here>, <!everyone>, <@U123>,
// <#C123>, <!subteam^…> or <http://x|text> is formed; and a zero-width
// space follows every '@', so servers that read plain "@channel",
// "@here" or "@user" as a mention do not either. Slack's emphasis
// characters are left alone: they only style text.
//
// Decoding the three entities and dropping the zero-width space after
// each '@' gives back OneLine(s).
func Slack(s string) string {
	return slackReplacer.Replace(OneLine(s))
}
