package service

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
)

// Each markdown surface of an entry shows hostile state details, branch
// and priority names as text (keeping the details' #123 references), and
// mentions only a valid login.
func TestSurfaceTextsEscapeUntrustedText(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "w"}, Branch: "rel`x"}}
	detail := "required check \"ci\" failed (failure): ](http://evil) ![x](http://evil/x.png) <!channel> @org/team; behind #12"
	e := &queue.Entry{ID: "e1", PRNumber: 3, PRSHA: "abcdef1234", State: queue.StateFailed, StateReason: queue.ReasonTestsFailed,
		StateReasonDetail: detail, PriorityName: "[p](http://evil)", Submitter: "alice", PR: queue.PRFacts{Author: "bob"}}
	raw := []string{"](http://evil)", "![x]", "<!channel>", "@org/team", "[p]", "(`rel`x`)"}
	texts := map[string]string{
		"sticky comment":    statusComment(q, e, entryView{pageURL: "https://mq.example/prs/acme/w/3"}, now),
		"failure comment":   failureComment(q, e),
		"check run summary": checkRun(q, e, entryView{}, now).Summary,
	}
	for surface, text := range texts {
		for _, r := range raw {
			if strings.Contains(text, r) {
				t.Errorf("%s holds %q raw:\n%s", surface, r, text)
			}
		}
	}
	for surface, text := range texts {
		if !strings.Contains(text, "behind #12") {
			t.Errorf("%s lost the reference to #12:\n%s", surface, text)
		}
	}
	if got := texts["failure comment"]; !strings.HasPrefix(got, "@alice this pull request failed") {
		t.Errorf("failure comment %q, want it to mention the submitter", got)
	}
	if got := texts["sticky comment"]; !strings.Contains(got, "(``rel`x``)") || !strings.Contains(got, "[details](https://mq.example/prs/acme/w/3)") {
		t.Errorf("sticky comment %q, want the branch as one code span and the queue's own link", got)
	}
	e.Submitter = "org/team"
	if got := failureComment(q, e); strings.Contains(got, "@org") || !strings.HasPrefix(got, "org/team this pull request") {
		t.Errorf("failure comment for submitter org/team: %q, want no mention", got)
	}
}

// The alert posted on a PR whose landing differs from what was tested
// names the differing paths (chosen by the PR's author) as text.
func TestMismatchAlertEscapesPaths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := memstore.New()
	s := NewService(store, &diffGitHub{}, Options{})
	q, err := s.CreateQueue(ctx, queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "w"}, Branch: "main"}, queue.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	e := &queue.Entry{ID: "e1", QueueID: q.ID, PRNumber: 3}
	mismatch := "main holds other content than the tested commit abc at @org/team.go, [x](http://evil).md, <img>.go"
	if err := s.pauseOnMismatch(ctx, q, e, &queue.TestRun{SHA: "abc"}, mismatch, "landed"); err != nil {
		t.Fatal(err)
	}
	due, err := store.DueNotices(ctx, time.Now().Add(time.Hour), 10)
	if err != nil || len(due) != 1 {
		t.Fatalf("notices %v, %v; want the alert", due, err)
	}
	for _, r := range []string{"@org", "[x](", "<img>"} {
		if strings.Contains(due[0].Body, r) {
			t.Errorf("alert %q holds %q raw", due[0].Body, r)
		}
	}
}
