package notify

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

type attempts struct {
	mu  sync.Mutex
	got []string
}

func (a *attempts) NotificationAttempted(target int, kind Kind, outcome string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, string(rune('0'+target))+" "+string(kind)+" "+outcome)
}

func TestObserverSeesEveryAttempt(t *testing.T) {
	f := newFixture(t)
	refusing := &endpoint{codes: []int{http.StatusBadRequest}}
	flaky := &endpoint{codes: []int{http.StatusServiceUnavailable}}
	rs, fs := httptest.NewServer(refusing), httptest.NewServer(flaky)
	defer rs.Close()
	defer fs.Close()
	slack, hook := Target{URL: rs.URL + "/services/T/B/secret", Kind: Slack}, Target{URL: fs.URL, Kind: Webhook}
	obs := &attempts{}
	n := New(sqliteStore{f.store}, Options{Targets: []Target{slack, hook}, DetailsURL: "http://mq.example/",
		Now: func() time.Time { return f.now }, Observer: obs})
	for _, tg := range []Target{slack, hook} {
		if _, err := n.Step(f.ctx, tg); err != nil {
			t.Fatal(err)
		}
	}
	f.event(t, 3, queue.StateTestsPassed, queue.StateMerged, queue.ReasonMergedByQueue, "single")
	if _, err := n.Step(f.ctx, slack); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Step(f.ctx, hook); err == nil {
		t.Fatal("the failing webhook step returned no error")
	}
	f.now = f.now.Add(time.Second)
	if _, err := n.Step(f.ctx, hook); err != nil {
		t.Fatal(err)
	}
	want := []string{"0 slack skipped", "1 webhook failed", "1 webhook delivered"}
	if !slices.Equal(obs.got, want) {
		t.Errorf("observed %q, want %q", obs.got, want)
	}
	cursors := n.TargetCursors()
	if len(cursors) != 2 || cursors[0].Index != 0 || cursors[0].Kind != Slack || cursors[1].Index != 1 || cursors[1].Kind != Webhook {
		t.Errorf("TargetCursors = %+v", cursors)
	}
	c, err := f.store.NotificationCursor(f.ctx, cursors[1].Key)
	if err != nil || c.LastEventID == 0 {
		t.Errorf("cursor of the webhook by its key: %+v, %v", c, err)
	}
	if behind, err := f.store.CountEventsAfter(f.ctx, c.LastEventID); err != nil || behind != 0 {
		t.Errorf("events after the caught-up cursor: %d, %v", behind, err)
	}
	if behind, err := f.store.CountEventsAfter(f.ctx, 0); err != nil || behind < 1 {
		t.Errorf("events after 0: %d, %v", behind, err)
	}
}
