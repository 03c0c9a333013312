package notify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/sqlite"
)

// The cursor key of a target is its kind and the SHA-256 of its URL, the
// form migration 0016 of the SQLite store rewrote older keys to.
func TestTargetKeyIsAHashOfTheURL(t *testing.T) {
	t.Parallel()
	url := "https://hooks.slack.com/services/T0/B0/secret"
	sum := sha256.Sum256([]byte(url))
	if got, want := TargetKey(Slack, url), "slack sha256:"+hex.EncodeToString(sum[:]); got != want {
		t.Errorf("TargetKey = %q, want %q", got, want)
	}
	if TargetKey(Webhook, url) == TargetKey(Slack, url) || TargetKey(Slack, url+"x") == TargetKey(Slack, url) {
		t.Error("two targets share a key")
	}
}

// storedBytes is everything the store keeps on disk: the database file and
// its WAL.
func storedBytes(t *testing.T, s *sqlite.Store) []byte {
	t.Helper()
	var out []byte
	for _, p := range []string{s.Path(), s.Path() + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

// A Slack webhook URL is the channel's credential: after a delivery to a
// Slack target (and a failed, retried one to a webhook target whose URL
// holds a token), neither the database file nor its WAL contains either URL
// or its secret part.
func TestDeliveryStoresNoTargetURL(t *testing.T) {
	t.Parallel()
	const slackSecret, hookSecret = "T0SLACK0B0SLACK0XXXXYYYY", "HOOK0TOKEN0QQQQ"
	f := newFixture(t)
	ep := &endpoint{codes: []int{200, 503}}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	slack := Target{URL: srv.URL + "/services/" + slackSecret, Kind: Slack}
	hook := Target{URL: srv.URL + "/hook?token=" + hookSecret, Kind: Webhook}
	n := f.notifier(slack, hook)
	for _, tg := range []Target{slack, hook} {
		if _, err := n.Step(f.ctx, tg); err != nil {
			t.Fatal(err)
		}
	}
	f.event(t, 3, queue.StateTestsPassed, queue.StateMerged, queue.ReasonMergedByQueue, "single")
	if _, err := n.Step(f.ctx, slack); err != nil {
		t.Fatal(err)
	}
	if len(ep.messages(t)) != 1 {
		t.Fatalf("slack got %d messages, want 1", len(ep.messages(t)))
	}
	if _, err := n.Step(f.ctx, hook); err == nil {
		t.Fatal("the webhook delivery did not fail (503)")
	}
	stored := storedBytes(t, f.store)
	for _, s := range []string{slackSecret, hookSecret, slack.URL, hook.URL} {
		if bytes.Contains(stored, []byte(s)) {
			t.Errorf("the database holds %q", s)
		}
	}
}

// Each target resumes where it was after a restart (a new store on the
// same file, a new Notifier): the first event is not sent again, the
// second is sent once, to each target.
func TestDeliveryResumesPerTargetAcrossARestart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slackEP, hookEP := &endpoint{}, &endpoint{}
	slackSrv, hookSrv := httptest.NewServer(slackEP), httptest.NewServer(hookEP)
	defer slackSrv.Close()
	defer hookSrv.Close()
	slack := Target{URL: slackSrv.URL + "/services/T0/B0/secret", Kind: Slack}
	hook := Target{URL: hookSrv.URL + "/hook", Kind: Webhook}
	n := f.notifier(slack, hook)
	for _, tg := range []Target{slack, hook} {
		if _, err := n.Step(f.ctx, tg); err != nil {
			t.Fatal(err)
		}
	}
	f.event(t, 3, queue.StateTestsPassed, queue.StateMerged, queue.ReasonMergedByQueue, "single")
	for _, tg := range []Target{slack, hook} {
		if _, err := n.Step(f.ctx, tg); err != nil {
			t.Fatal(err)
		}
	}
	path := f.store.Path()
	if err := f.store.Close(); err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	f.store = store
	f.event(t, 1, queue.StateTesting, queue.StateFailed, queue.ReasonTestsFailed, "half")
	restarted := f.notifier(slack, hook)
	for _, tg := range []Target{slack, hook} {
		if _, err := restarted.Step(f.ctx, tg); err != nil {
			t.Fatal(err)
		}
	}
	var slackTexts []string
	for _, m := range slackEP.messages(t) {
		slackTexts = append(slackTexts, m["text"].(string))
	}
	if len(slackTexts) != 2 || slackTexts[0] != "acme/widgets → main: #3 merged — because merged_by_queue" ||
		slackTexts[1] != "acme/widgets → main: #1 failed — because tests_failed" {
		t.Errorf("slack got %q, want #3 merged then #1 failed, once each", slackTexts)
	}
	var hookGot []string
	for _, m := range hookEP.messages(t) {
		hookGot = append(hookGot, fmt.Sprintf("%s #%v %s", m["type"], m["pr_number"], m["action"]))
	}
	if got := strings.Join(hookGot, ", "); got != "pull_request #3 merged, pull_request #1 failed" {
		t.Errorf("webhook got %s, want #3 merged then #1 failed, once each", got)
	}
}
