package sqlite

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

func TestListEntriesFiltersAndPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	other := mustQueue(t, s, "dev")
	// Entries 1..6: odd ones merged at t0+n min, even ones active, submitted at t0+n min.
	for n := 1; n <= 6; n++ {
		e := &queue.Entry{ID: fmt.Sprintf("e%d", n), QueueID: q.ID, PRNumber: n, State: queue.StatePending,
			SubmittedAt: at(time.Duration(n) * time.Minute)}
		if n%2 == 1 {
			e.State, e.ConcludedAt = queue.StateMerged, at(time.Duration(n)*time.Minute+30*time.Second)
		}
		if err := s.SaveEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveEntry(ctx, &queue.Entry{ID: "x", QueueID: other.ID, PRNumber: 1, State: queue.StatePending, SubmittedAt: t0}); err != nil {
		t.Fatal(err)
	}
	idsOf := func(es []*queue.Entry) []string {
		out := []string{}
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	tests := []struct {
		name string
		q    queue.EntryQuery
		want []string
	}{
		{"all newest first", queue.EntryQuery{QueueID: q.ID}, []string{"e6", "e5", "e4", "e3", "e2", "e1"}},
		{"one state", queue.EntryQuery{QueueID: q.ID, States: []queue.EntryState{queue.StateMerged}}, []string{"e5", "e3", "e1"}},
		{"several states", queue.EntryQuery{QueueID: q.ID, States: []queue.EntryState{queue.StateMerged, queue.StatePending}, Limit: 2}, []string{"e6", "e5"}},
		{"since and until", queue.EntryQuery{QueueID: q.ID, Since: at(2 * time.Minute), Until: at(4 * time.Minute)}, []string{"e3", "e2"}},
		{"after a position", queue.EntryQuery{QueueID: q.ID, AfterAt: at(4 * time.Minute), AfterID: "e4", Limit: 2}, []string{"e3", "e2"}},
	}
	for _, tc := range tests {
		got, err := s.ListEntries(ctx, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(idsOf(got), tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, idsOf(got), tc.want)
		}
	}
}

func TestTargetsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	if _, err := s.GetTargets(ctx, q.ID, 1); !errors.Is(err, queue.ErrNotFound) {
		t.Fatalf("GetTargets before set: %v, want ErrNotFound", err)
	}
	for _, want := range []queue.Targets{
		{QueueID: q.ID, PRNumber: 1, SHA: "a", List: []string{"//x:y", "//z"}, UpdatedAt: t0},
		{QueueID: q.ID, PRNumber: 1, SHA: "b", All: true, List: []string{}, UpdatedAt: at(time.Second)},
	} {
		if err := s.SetTargets(ctx, want); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetTargets(ctx, q.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("got %+v, want %+v", *got, want)
		}
	}
	if err := s.DeleteQueue(ctx, q.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetTargets(ctx, q.ID, 1); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("targets survived their queue: %v", err)
	}
}

func TestEventsSince(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	for i := 0; i < 3; i++ {
		ev := &queue.Event{QueueID: q.ID, EntryID: "e1", PRNumber: 1, At: at(time.Duration(i) * time.Minute),
			From: queue.StatePending, To: queue.StateTesting, Reason: queue.ReasonTesting, Detail: fmt.Sprint(i), RunID: "r"}
		if err := s.AddEvent(ctx, ev); err != nil || ev.ID == 0 {
			t.Fatalf("AddEvent: %v (id %d)", err, ev.ID)
		}
	}
	got, err := s.ListEvents(ctx, q.ID, at(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Detail != "1" || got[1].Detail != "2" || got[0].To != queue.StateTesting || !got[0].At.Equal(at(time.Minute)) {
		t.Errorf("ListEvents = %+v", got)
	}
}
