package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/record"
)

var inboxTests = []portsCase{
	{"inbox/put delivery", func(t *testing.T, s Ports) {
		d := record.Delivery{ID: "d1", Event: "pull_request", Payload: []byte(`{"action":"opened"}`), ReceivedAt: t0}
		isNew, err := s.PutDelivery(ctx, d)
		if err != nil || !isNew {
			t.Fatalf("first PutDelivery = %v, %v; want true, nil", isNew, err)
		}
		dup := record.Delivery{ID: "d1", Event: "push", Payload: []byte(`{}`), ReceivedAt: at(time.Hour)}
		isNew, err = s.PutDelivery(ctx, dup)
		if err != nil || isNew {
			t.Fatalf("duplicate PutDelivery = %v, %v; want false, nil", isNew, err)
		}
		got, err := s.PendingDeliveries(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		assertEqual(t, got, []record.Delivery{d})

		if _, err := s.PutDelivery(ctx, record.Delivery{Event: "push"}); err == nil {
			t.Error("PutDelivery with an empty ID succeeded")
		}
	}},
	{"inbox/pending deliveries order and limit", func(t *testing.T, s Ports) {
		for _, d := range []record.Delivery{
			{ID: "late", Event: "push", ReceivedAt: at(3 * time.Second)},
			{ID: "early", Event: "push", ReceivedAt: at(time.Second)},
			{ID: "tie-first", Event: "push", ReceivedAt: at(2 * time.Second)},
			{ID: "tie-second", Event: "push", ReceivedAt: at(2 * time.Second)},
			{ID: "done", Event: "push", ReceivedAt: at(0), Done: true},
		} {
			if _, err := s.PutDelivery(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		ids := func(ds []record.Delivery) []string {
			var out []string
			for _, d := range ds {
				out = append(out, d.ID)
			}
			return out
		}
		cases := []struct {
			name  string
			limit int
			want  []string
		}{
			{"all", 0, []string{"early", "tie-first", "tie-second", "late"}},
			{"limited", 2, []string{"early", "tie-first"}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				got, err := s.PendingDeliveries(ctx, tc.limit)
				if err != nil {
					t.Fatal(err)
				}
				assertEqual(t, ids(got), tc.want)
			})
		}
	}},
	{"inbox/finish delivery", func(t *testing.T, s Ports) {
		if _, err := s.PutDelivery(ctx, record.Delivery{ID: "d", Event: "push", Payload: []byte("x"), ReceivedAt: t0}); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishDelivery(ctx, "d", false, "github is down"); err != nil {
			t.Fatal(err)
		}
		got, err := s.PendingDeliveries(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := record.Delivery{ID: "d", Event: "push", Payload: []byte("x"), ReceivedAt: t0, Attempts: 1, Error: "github is down"}
		assertEqual(t, got, []record.Delivery{want})

		if err := s.FinishDelivery(ctx, "d", true, ""); err != nil {
			t.Fatal(err)
		}
		if got, err := s.PendingDeliveries(ctx, 0); err != nil || len(got) != 0 {
			t.Fatalf("PendingDeliveries after done = %v, %v", got, err)
		}
		// A done delivery stays done.
		if err := s.FinishDelivery(ctx, "d", false, "late retry"); err != nil {
			t.Fatal(err)
		}
		if got, err := s.PendingDeliveries(ctx, 0); err != nil || len(got) != 0 {
			t.Fatalf("PendingDeliveries after a late failure = %v, %v; want it still done", got, err)
		}

		if err := s.FinishDelivery(ctx, "nope", true, ""); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("FinishDelivery(unknown) = %v, want ErrNotFound", err)
		}
	}},
	{"inbox/inbox stats", func(t *testing.T, s Ports) {
		if st, err := s.InboxStats(ctx); err != nil || st != (record.InboxStats{}) {
			t.Fatalf("empty inbox: %+v, %v", st, err)
		}
		t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
		for i, id := range []string{"a", "b", "c"} {
			if _, err := s.PutDelivery(ctx, record.Delivery{ID: id, Event: "push", Payload: []byte(`{}`), ReceivedAt: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
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
	}},
}
