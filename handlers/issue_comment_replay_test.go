package handlers

import (
	"context"
	"testing"
	"time"
)

// Issue #15: a signed comment webhook captured and replayed under a new
// delivery id runs its command once: the replay reads nothing from
// GitHub, reacts, replies and submits nothing. A retry of the delivery
// that acted (the inbox retries failures) may act again.
func TestReplayedCommentRunsOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, login, body string }{
		{"accepted command", "writer", "/mq merge"},
		{"refused command", "reader", "/mq merge"},
		{"unknown command", "writer", "/mq frobnicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			svc, gh := commentWorld()
			h := NewIssueCommentHandler(testConfig(), svc, svc, gh)
			payload := prComment(t, "created.payload.json", tc.login, tc.body)
			if err := h.Handle(context.Background(), "issue_comment", "delivery-1", payload); err != nil {
				t.Fatal(err)
			}
			submits, notices, calls, perms := len(svc.submits), len(svc.notices), len(svc.calls), gh.permCalls
			if notices == 0 {
				t.Fatal("the first delivery did nothing")
			}
			for _, id := range []string{"delivery-2", "delivery-3"} {
				if err := h.Handle(context.Background(), "issue_comment", id, payload); err != nil {
					t.Fatal(err)
				}
			}
			if len(svc.submits) != submits || len(svc.notices) != notices || len(svc.calls) != calls || gh.permCalls != perms {
				t.Errorf("replays: submits %d→%d, notices %d→%d, service calls %v, permission reads %d→%d; want no change",
					submits, len(svc.submits), notices, len(svc.notices), svc.calls, perms, gh.permCalls)
			}
			if err := h.Handle(context.Background(), "issue_comment", "delivery-1", payload); err != nil {
				t.Fatal(err)
			}
			if gh.permCalls == perms {
				t.Error("a retry of the delivery that acted was not let through")
			}
		})
	}
}

// Commands come from new comments only (SPEC): a command written into a
// comment by an edit (a new updated_at) runs nothing, nor does an edit of a
// comment whose command ran.
func TestEditedCommentRunsNothing(t *testing.T) {
	t.Parallel()
	svc, gh := commentWorld()
	h := NewIssueCommentHandler(testConfig(), svc, svc, gh)
	edited := patchJSON(t, prComment(t, "created.payload.json", "writer", "/mq merge"), func(m map[string]any) {
		m["action"] = "edited"
		m["changes"] = map[string]any{"body": map[string]any{"from": "LGTM"}}
		obj(m, "comment")["updated_at"] = "2019-05-15T16:00:00Z"
	})
	if err := h.Handle(context.Background(), "issue_comment", "edit-1", edited); err != nil {
		t.Fatal(err)
	}
	if len(svc.submits) != 0 || len(svc.notices) != 0 || gh.permCalls != 0 || len(svc.claims) != 0 {
		t.Errorf("an edited comment: submits %v, notices %v, permission reads %d, claims %v; want none",
			svc.submits, svc.notices, gh.permCalls, svc.claims)
	}
}

// Each new comment is its own command, even with the same text.
func TestEachNewCommentRuns(t *testing.T) {
	t.Parallel()
	svc, gh := commentWorld()
	h := NewIssueCommentHandler(testConfig(), svc, svc, gh)
	for i, id := range []float64{1001, 1002} {
		payload := patchJSON(t, prComment(t, "created.payload.json", "writer", "/mq merge"), func(m map[string]any) {
			obj(m, "comment")["id"] = id
		})
		if err := h.Handle(context.Background(), "issue_comment", "delivery-"+string(rune('a'+i)), payload); err != nil {
			t.Fatal(err)
		}
	}
	if len(svc.submits) != 2 {
		t.Errorf("two comments submitted %d times, want 2", len(svc.submits))
	}
}

// FuzzCommentTime: updated_at is read as RFC 3339 in UTC, anything else as
// the zero time; a time read back from its own formatting is the same.
func FuzzCommentTime(f *testing.F) {
	for _, seed := range []string{"2019-05-15T15:20:21Z", "2019-05-15T17:20:21+02:00", "2019-05-15T15:20:21.123456789Z",
		"", "yesterday", "2019-05-15", "9999-12-31T23:59:59Z", "2019-13-45T99:99:99Z"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := commentTime(s)
		if got.IsZero() {
			return
		}
		if got.Location() != time.UTC {
			t.Fatalf("commentTime(%q) = %s, not in UTC", s, got)
		}
		if again := commentTime(got.Format(time.RFC3339Nano)); !again.Equal(got) {
			t.Fatalf("commentTime(%q) = %s, read back as %s", s, got, again)
		}
	})
}
