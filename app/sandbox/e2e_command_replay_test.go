package sandbox

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers/inbox"
)

// Issue #15: a signed comment webhook captured on its way and replayed
// under a new delivery id changes nothing: the PR the command queued and
// a maintainer then cancelled stays cancelled, and the bot reacts once.
func TestReplayedCommentWebhookChangesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.env.Fake.SetCIHold(true)
	h.createQueue(1)
	if err := h.env.Fake.SetPermission(owner, repo, "alice", "write"); err != nil {
		t.Fatal(err)
	}
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	if _, err := h.env.Fake.Comment(owner, repo, p1, "alice", "/mq merge"); err != nil {
		t.Fatal(err)
	}
	h.waitState(p1, "testing")
	var captured []byte
	for _, d := range h.env.Fake.Deliveries() {
		var ev struct {
			Comment struct {
				User struct {
					Login string `json:"login"`
				} `json:"user"`
			} `json:"comment"`
		}
		if d.Event == "issue_comment" && d.Action == "created" && json.Unmarshal(d.Payload, &ev) == nil && ev.Comment.User.Login == "alice" {
			captured = d.Payload
		}
	}
	if captured == nil {
		t.Fatal("alice's comment's webhook was not delivered")
	}
	h.mustPost("cancelPullRequest", map[string]any{"repo": repoBody(), "targetBranch": "main", "pr": map[string]any{"number": p1}})
	h.waitState(p1, "cancelled")

	sig := inbox.Sign([]byte(h.env.WebhookSecret()), captured)
	for _, id := range []string{"replayed-1", "replayed-2"} {
		if got := h.deliver(id, captured, sig); got != http.StatusOK {
			t.Fatalf("replay %s: status %d, want 200 (it is validly signed)", id, got)
		}
	}
	h.waitFor("the replays to be processed", func() bool {
		pending, err := h.env.App().Store().PendingDeliveries(context.Background(), 0)
		return err == nil && len(pending) == 0
	}, nil)
	if e, _ := h.entry(p1); e.State != "cancelled" {
		t.Errorf("after the replays #%d is %s, want cancelled", p1, e.State)
	}
	h.waitWebhooksIdle()
	if got := h.env.Fake.Calls("POST /repos/{owner}/{repo}/issues/comments/{id}/reactions"); got != 1 {
		t.Errorf("the bot reacted %d times, want once", got)
	}
}
