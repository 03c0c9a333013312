package notify

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// hostileDetail is a state detail quoting text others control (a check
// name, a CI URL recorded before URLs were validated, a PR title).
const hostileDetail = `required check "ci <!channel>" failed (failure): <http://evil|click here> <@U123> <!here> @channel @org/team & co`

// The Slack line shows untrusted text inert: no <!channel>, <!here>,
// <@U…> or <url|text> is formed, no plain @mention survives, and Slack is
// asked not to unfurl links; the webhook payload carries the detail as
// plain text and keeps details_url the dashboard's.
func TestUntrustedTextInNotifications(t *testing.T) {
	f := newFixture(t)
	slackEP, hookEP := &endpoint{}, &endpoint{}
	slackSrv, hookSrv := httptest.NewServer(slackEP), httptest.NewServer(hookEP)
	defer slackSrv.Close()
	defer hookSrv.Close()
	slack, hook := Target{URL: slackSrv.URL, Kind: Slack}, Target{URL: hookSrv.URL, Kind: Webhook}
	n := f.notifier(slack, hook)
	for _, tg := range []Target{slack, hook} {
		if _, err := n.Step(f.ctx, tg); err != nil {
			t.Fatal(err)
		}
	}
	ev := &queue.Event{QueueID: f.q.ID, EntryID: "e3", PRNumber: 3, At: f.now, From: queue.StateTesting,
		To: queue.StateFailed, Reason: queue.ReasonTestsFailed, Detail: hostileDetail, RunID: "single"}
	if err := f.store.AddEvent(f.ctx, ev); err != nil {
		t.Fatal(err)
	}
	for _, tg := range []Target{slack, hook} {
		if _, err := n.Step(f.ctx, tg); err != nil {
			t.Fatal(err)
		}
	}
	got := slackEP.messages(t)
	if len(got) != 1 {
		t.Fatalf("slack got %v, want one line", got)
	}
	text, _ := got[0]["text"].(string)
	for _, raw := range []string{"<!channel>", "<!here>", "<@U123>", "<http://evil|", "@channel", "@org", " & "} {
		if strings.Contains(text, raw) {
			t.Errorf("slack text %q holds %q raw", text, raw)
		}
	}
	if !strings.Contains(text, "&lt;!channel&gt;") || !strings.Contains(text, "&amp; co") {
		t.Errorf("slack text %q, want the detail shown escaped", text)
	}
	if got[0]["unfurl_links"] != false || got[0]["unfurl_media"] != false {
		t.Errorf("slack message %v, want unfurl_links and unfurl_media false", got[0])
	}
	hooks := hookEP.messages(t)
	if len(hooks) == 0 {
		t.Fatal("the webhook got nothing")
	}
	for _, m := range hooks {
		if m["detail"] != hostileDetail || m["details_url"] != "http://mq.example/" {
			t.Errorf("webhook detail %q, details_url %q; want the detail as plain text and the dashboard's URL", m["detail"], m["details_url"])
		}
	}
	hookEP.mu.Lock()
	defer hookEP.mu.Unlock()
	for _, r := range hookEP.got {
		if strings.ContainsAny(string(r.body), "<>") {
			t.Errorf("webhook body %s holds a raw < or >", r.body)
		}
	}
}
