package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/handlers/inbox"
	"github.com/mergequeue/mq/queue"
)

func TestPutDelivery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	d := inbox.Delivery{ID: "d1", Event: "pull_request", Payload: []byte(`{"action":"opened"}`), ReceivedAt: t0}
	isNew, err := s.PutDelivery(ctx, d)
	if err != nil || !isNew {
		t.Fatalf("first PutDelivery = %v, %v; want true, nil", isNew, err)
	}
	dup := inbox.Delivery{ID: "d1", Event: "push", Payload: []byte(`{}`), ReceivedAt: at(time.Hour)}
	isNew, err = s.PutDelivery(ctx, dup)
	if err != nil || isNew {
		t.Fatalf("duplicate PutDelivery = %v, %v; want false, nil", isNew, err)
	}
	got, err := s.PendingDeliveries(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, got, []inbox.Delivery{d})

	if _, err := s.PutDelivery(ctx, inbox.Delivery{Event: "push"}); err == nil {
		t.Error("PutDelivery with an empty ID succeeded")
	}
}

func TestPendingDeliveriesOrderAndLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	for _, d := range []inbox.Delivery{
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
	ids := func(ds []inbox.Delivery) []string {
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
}

func TestFinishDelivery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	if _, err := s.PutDelivery(ctx, inbox.Delivery{ID: "d", Event: "push", Payload: []byte("x"), ReceivedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishDelivery(ctx, "d", false, "github is down"); err != nil {
		t.Fatal(err)
	}
	got, err := s.PendingDeliveries(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := inbox.Delivery{ID: "d", Event: "push", Payload: []byte("x"), ReceivedAt: t0, Attempts: 1, Error: "github is down"}
	assertEqual(t, got, []inbox.Delivery{want})

	if err := s.FinishDelivery(ctx, "d", true, ""); err != nil {
		t.Fatal(err)
	}
	if got, err := s.PendingDeliveries(ctx, 0); err != nil || len(got) != 0 {
		t.Fatalf("PendingDeliveries after done = %v, %v", got, err)
	}
	// A done delivery stays done and keeps counting attempts.
	if err := s.FinishDelivery(ctx, "d", false, "late retry"); err != nil {
		t.Fatal(err)
	}
	var attempts int
	var done bool
	if err := s.reader.QueryRowContext(ctx, `SELECT attempts, done FROM deliveries WHERE id = 'd'`).Scan(&attempts, &done); err != nil {
		t.Fatal(err)
	}
	if attempts != 3 || !done {
		t.Errorf("attempts %d, done %v; want 3, true", attempts, done)
	}

	if err := s.FinishDelivery(ctx, "nope", true, ""); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("FinishDelivery(unknown) = %v, want ErrNotFound", err)
	}
}
