package service

import (
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// A testing entry's check run and status comment say when its run times
// out, to the minute (rounded up), beside when it is expected to finish
// (issue #19 item 2).
func TestSurfacesShowWhenTheRunTimesOut(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "w"}, Branch: "main"}}
	e := &queue.Entry{ID: "e1", PRNumber: 3, PRSHA: "abcdef1234", State: queue.StateTesting, StateReason: queue.ReasonTesting,
		StateReasonDetail: "testing on main", PriorityName: "medium"}
	v := entryView{est: readside.Estimate{Position: 1, Of: 1, RunEndsAt: now.Add(7 * time.Minute),
		TimesOutAt: now.Add(14*time.Minute + 30*time.Second)}}
	if title := checkRun(q, e, v, now).Title; !strings.Contains(title, "times out 10:15 UTC") {
		t.Errorf("check run title %q does not say it times out at 10:15 UTC", title)
	}
	if body := statusComment(q, e, v, now); !strings.Contains(body, "it times out at 10:15 UTC") {
		t.Errorf("status comment does not say it times out at 10:15 UTC:\n%s", body)
	}
	v.est.TimesOutAt = time.Time{}
	if title := checkRun(q, e, v, now).Title; strings.Contains(title, "times out") {
		t.Errorf("check run title %q mentions a timeout the queue does not have", title)
	}
}
