package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/mergequeue/mq/handlers/inbox"
)

func TestInboxStats(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	if st, err := s.InboxStats(ctx); err != nil || st != (inbox.Stats{}) {
		t.Fatalf("empty inbox: %+v, %v", st, err)
	}
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	for i, id := range []string{"a", "b", "c"} {
		if _, err := s.PutDelivery(ctx, inbox.Delivery{ID: id, Event: "push", Payload: []byte(`{}`), ReceivedAt: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FinishDelivery(ctx, "a", true, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishDelivery(ctx, "b", false, "retry"); err != nil {
		t.Fatal(err)
	}
	st, err := s.InboxStats(ctx)
	if err != nil || st.Pending != 2 || !st.OldestPending.Equal(t0.Add(time.Minute)) {
		t.Fatalf("stats %+v, %v; want 2 pending, the oldest received at %s", st, err, t0.Add(time.Minute))
	}
}
