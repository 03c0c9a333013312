package storetest

import (
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue/record"
)

// ids is the IDs of ds, in order.
func ids(ds []record.Delivery) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return out
}

var sharedClaimTests = []portsCase{
	{"inbox/claims", func(t *testing.T, s Ports) {
		for i, id := range []string{"a", "b", "c"} {
			must(t, putDelivery(s, record.Delivery{ID: id, Event: "push", ReceivedAt: at(time.Duration(i) * time.Second)}))
		}
		must(t, putDelivery(s, record.Delivery{ID: "done", Event: "push", ReceivedAt: at(0), Done: true}))
		const hold = time.Minute
		claim := func(now time.Time, limit int) []string {
			t.Helper()
			ds, err := s.ClaimDeliveries(ctx, now, hold, limit)
			if err != nil {
				t.Fatalf("ClaimDeliveries: %v", err)
			}
			return ids(ds)
		}
		assertEqual(t, claim(t0, 2), []string{"a", "b"})
		assertEqual(t, claim(t0, 5), []string{"c"})
		assertEqual(t, claim(t0.Add(time.Second), 5), []string{})

		// A failed attempt is released with its retry time: nobody claims
		// it before.
		must(t, s.ReleaseDelivery(ctx, "a", false, "github is down", t0.Add(10*time.Second)))
		// A processed one is never claimed again.
		must(t, s.ReleaseDelivery(ctx, "b", true, "", time.Time{}))
		assertEqual(t, claim(t0.Add(9*time.Second), 5), []string{})
		assertEqual(t, claim(t0.Add(10*time.Second), 5), []string{"a"})
		pending, err := s.PendingDeliveries(ctx, 0)
		must(t, err)
		if len(pending) != 2 || pending[0].ID != "a" || pending[0].Attempts != 1 || pending[0].Error != "github is down" {
			t.Fatalf("pending after the release = %+v; want a (1 attempt, its error) and c", pending)
		}
		// c's claimer renews its claim while it works, then never comes
		// back: its claim ends when the renewed one does.
		must(t, s.RenewClaim(ctx, "c", t0.Add(hold+5*time.Second)))
		assertEqual(t, claim(t0.Add(hold+5*time.Second-time.Nanosecond), 5), []string{})
		assertEqual(t, claim(t0.Add(hold+5*time.Second), 5), []string{"c"})

		if _, err := s.ClaimDeliveries(ctx, t0, hold, 0); err == nil {
			t.Error("ClaimDeliveries(limit 0) succeeded")
		}
		if err := s.ReleaseDelivery(ctx, "nope", true, "", time.Time{}); err == nil {
			t.Error("ReleaseDelivery(unknown) succeeded")
		}
	}},
	{"outbox/cursor claims", func(t *testing.T, s Ports) {
		const hold = time.Minute
		c, ok, err := s.ClaimNotificationCursor(ctx, "slack:abc", "r1", t0, hold)
		if err != nil || !ok || c.Target != "slack:abc" {
			t.Fatalf("first claim = %+v, %v, %v; want the cursor", c, ok, err)
		}
		saved := record.NotificationCursor{Target: "slack:abc", LastEventID: 7, Attempts: 2, LastError: "503",
			NextAttemptAt: t0.Add(time.Minute).Truncate(time.Millisecond)}
		must(t, s.SaveNotificationCursor(ctx, saved))
		if _, ok, err := s.ClaimNotificationCursor(ctx, "slack:abc", "r2", t0.Add(hold-time.Nanosecond), hold); err != nil || ok {
			t.Fatalf("claim of a held cursor = %v, %v; want refused", ok, err)
		}
		if c, ok, err := s.ClaimNotificationCursor(ctx, "slack:abc", "r1", t0.Add(time.Second), hold); err != nil || !ok {
			t.Fatalf("holder's renewal = %v, %v", ok, err)
		} else {
			assertEqual(t, c, saved)
		}
		if _, ok, err := s.ClaimNotificationCursor(ctx, "slack:abc", "r2", t0.Add(time.Second+hold-time.Nanosecond), hold); err != nil || ok {
			t.Fatalf("claim before the renewed hold ended = %v, %v; want refused", ok, err)
		}
		if _, ok, err := s.ClaimNotificationCursor(ctx, "slack:abc", "r2", t0.Add(time.Second+hold), hold); err != nil || !ok {
			t.Fatalf("claim after the hold ended = %v, %v; want taken", ok, err)
		}
		if _, ok, err := s.ClaimNotificationCursor(ctx, "slack:abc", "r1", t0.Add(time.Second+hold), hold); err != nil || ok {
			t.Fatalf("former holder's claim = %v, %v; want refused", ok, err)
		}
		if _, ok, err := s.ClaimNotificationCursor(ctx, "generic:def", "r1", t0, hold); err != nil || !ok {
			t.Fatalf("claim of another target = %v, %v; want taken", ok, err)
		}
	}},
	{"roles/one holder at a time", func(t *testing.T, s Ports) {
		const hold = time.Minute
		steps := []struct {
			holder string
			at     time.Duration
			want   bool
		}{
			{"r1", 0, true},
			{"r2", hold - time.Nanosecond, false},
			{"r1", time.Second, true}, // renewed until 1s+hold
			{"r2", time.Second + hold - time.Nanosecond, false},
			{"r2", time.Second + hold, true},
			{"r1", time.Second + hold, false},
		}
		for i, st := range steps {
			ok, err := s.ClaimRole(ctx, "reconciler", st.holder, t0.Add(st.at), hold)
			if err != nil || ok != st.want {
				t.Fatalf("step %d: %s claims at +%v = %v, %v; want %v", i, st.holder, st.at, ok, err, st.want)
			}
		}
		if ok, err := s.ClaimRole(ctx, "other", "r1", t0.Add(time.Second+hold), hold); err != nil || !ok {
			t.Fatalf("another role = %v, %v; want taken", ok, err)
		}
	}},
}

func putDelivery(s Ports, d record.Delivery) error {
	_, err := s.PutDelivery(ctx, d)
	return err
}

// PairFactory returns two stores on one new, empty database (as two
// processes would open it), cleaned up when t ends.
type PairFactory func(t *testing.T) (Ports, Ports)

// RunShared proves that stores of several processes on one database share
// its inbox and outbox: concurrent claims through two store values get
// disjoint deliveries, and a notification cursor is held by one of them at
// a time. It is for the stores that serve several processes (PostgreSQL).
func RunShared(t *testing.T, newPair PairFactory) {
	t.Run("inbox/claims are disjoint across stores", func(t *testing.T) {
		t.Parallel()
		a, b := newPair(t)
		const n = 120
		for i := range n {
			must(t, putDelivery(a, record.Delivery{ID: fmt.Sprintf("d%03d", i), Event: "push", ReceivedAt: at(time.Duration(i))}))
		}
		var mu sync.Mutex
		claimed := map[string]int{}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 8 {
			s := a
			if w%2 == 1 {
				s = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					ds, err := s.ClaimDeliveries(ctx, t0, time.Hour, 3)
					if err != nil {
						errs <- err
						return
					}
					if len(ds) == 0 {
						return
					}
					mu.Lock()
					for _, d := range ds {
						claimed[d.ID]++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("ClaimDeliveries: %v", err)
		}
		var twice []string
		for id, k := range claimed {
			if k > 1 {
				twice = append(twice, id)
			}
		}
		sort.Strings(twice)
		if len(twice) > 0 || len(claimed) != n {
			t.Fatalf("claimed %d of %d deliveries; claimed more than once: %v", len(claimed), n, twice)
		}
	})
	t.Run("outbox/a cursor has one holder across stores", func(t *testing.T) {
		t.Parallel()
		a, b := newPair(t)
		if _, ok, err := a.ClaimNotificationCursor(ctx, "generic:x", "r1", t0, time.Minute); err != nil || !ok {
			t.Fatalf("claim through the first store = %v, %v", ok, err)
		}
		if _, ok, err := b.ClaimNotificationCursor(ctx, "generic:x", "r2", t0.Add(time.Second), time.Minute); err != nil || ok {
			t.Fatalf("claim through the second store = %v, %v; want refused while the first holds it", ok, err)
		}
		if _, ok, err := b.ClaimNotificationCursor(ctx, "generic:x", "r2", t0.Add(time.Minute), time.Minute); err != nil || !ok {
			t.Fatalf("claim through the second store after the hold = %v, %v; want taken", ok, err)
		}
		if ok, err := a.ClaimRole(ctx, "reconciler", "r1", t0, time.Minute); err != nil || !ok {
			t.Fatalf("role through the first store = %v, %v", ok, err)
		}
		if ok, err := b.ClaimRole(ctx, "reconciler", "r2", t0.Add(time.Second), time.Minute); err != nil || ok {
			t.Fatalf("role through the second store = %v, %v; want refused while the first holds it", ok, err)
		}
	})
}
