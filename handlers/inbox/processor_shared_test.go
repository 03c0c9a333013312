package inbox

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"
)

// blockingHandler records every call and, for the delivery block, waits
// until release is closed.
type blockingHandler struct {
	recordingHandler
	block   string
	started chan struct{}
	release chan struct{}
}

func (h *blockingHandler) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	err := h.recordingHandler.Handle(ctx, eventType, deliveryID, payload)
	if deliveryID == h.block {
		close(h.started)
		<-h.release
	}
	return err
}

// Two processes (replicas) sharing one inbox: while the first handles a
// delivery, the second handles every other one, and never that one.
func TestProcessorsSharingAnInboxHandleEachDeliveryOnce(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	for i := range 6 {
		put(t, inbox, fmt.Sprintf("d%d", i), "push")
	}
	h := &blockingHandler{recordingHandler: recordingHandler{events: []string{"push"}}, block: "d0",
		started: make(chan struct{}), release: make(chan struct{})}
	first := NewProcessor(inbox, []githubapp.EventHandler{h}, zerolog.Nop())
	second := NewProcessor(inbox, []githubapp.EventHandler{h}, zerolog.Nop())

	firstDone := make(chan error, 1)
	go func() {
		_, err := first.ProcessPending(context.Background())
		firstDone <- err
	}()
	<-h.started // the first holds d0, in its handler
	n, err := second.ProcessPending(context.Background())
	if err != nil {
		t.Fatalf("second ProcessPending: %v", err)
	}
	close(h.release)
	if err := <-firstDone; err != nil {
		t.Fatalf("first ProcessPending: %v", err)
	}
	if n == 0 {
		t.Fatal("the second processor handled nothing while the first was busy")
	}
	got := h.ids()
	sort.Strings(got)
	if strings.Join(got, ",") != "d0,d1,d2,d3,d4,d5" {
		t.Fatalf("handled %v; want every delivery exactly once", got)
	}
	for i := range 6 {
		if d, _ := inbox.get(fmt.Sprintf("d%d", i)); !d.Done || d.Attempts != 1 {
			t.Fatalf("delivery d%d = %+v; want done after one attempt", i, d)
		}
	}
}

// A failed delivery waits for its retry time on every process sharing the
// inbox, not only on the one that failed it.
func TestProcessorRetryTimeHoldsForEveryProcess(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	put(t, inbox, "d", "push")
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	failing := &recordingHandler{events: []string{"push"}, fail: func(string) error { return errors.New("boom") }}
	first := NewProcessor(inbox, []githubapp.EventHandler{failing}, zerolog.Nop(),
		WithProcessorClock(clock.Now), WithRetryBackoff(10*time.Second, time.Minute))
	ok := &recordingHandler{events: []string{"push"}}
	second := NewProcessor(inbox, []githubapp.EventHandler{ok}, zerolog.Nop(), WithProcessorClock(clock.Now))

	if n, err := first.ProcessPending(context.Background()); err != nil || n != 1 {
		t.Fatalf("first ProcessPending = %d, %v; want 1", n, err)
	}
	clock.Advance(9 * time.Second)
	if n, err := second.ProcessPending(context.Background()); err != nil || n != 0 {
		t.Fatalf("second ProcessPending before the retry time = %d, %v; want 0", n, err)
	}
	clock.Advance(time.Second)
	if n, err := second.ProcessPending(context.Background()); err != nil || n != 1 {
		t.Fatalf("second ProcessPending at the retry time = %d, %v; want 1", n, err)
	}
	if d, _ := inbox.get("d"); !d.Done || d.Attempts != 2 {
		t.Fatalf("delivery = %+v; want done after two attempts", d)
	}
}

// A handler running longer than a claim's hold keeps its delivery: the
// claim is renewed while it runs, so another process does not take the
// delivery from a live claimer (only from a dead one, after the hold).
func TestProcessorRenewsTheClaimWhileTheHandlerRuns(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	put(t, inbox, "slow", "push")
	h := &blockingHandler{recordingHandler: recordingHandler{events: []string{"push"}}, block: "slow",
		started: make(chan struct{}), release: make(chan struct{})}
	const hold = 150 * time.Millisecond
	first := NewProcessor(inbox, []githubapp.EventHandler{h}, zerolog.Nop(), WithClaimHold(hold))
	second := NewProcessor(inbox, []githubapp.EventHandler{h}, zerolog.Nop(), WithClaimHold(hold))
	done := make(chan error, 1)
	go func() {
		_, err := first.ProcessPending(context.Background())
		done <- err
	}()
	<-h.started
	// Well past the first hold: renewed at least three times since.
	deadline := time.Now().Add(30 * time.Second)
	for inbox.renewCount() < 3 {
		if time.Now().After(deadline) {
			t.Fatal("the claim was not renewed while the handler ran")
		}
		time.Sleep(5 * time.Millisecond) // polling interval
	}
	if n, err := second.ProcessPending(context.Background()); err != nil || n != 0 {
		t.Fatalf("second ProcessPending while the first still handles the delivery = %d, %v; want 0", n, err)
	}
	close(h.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := h.ids(); len(got) != 1 {
		t.Fatalf("handled %v; want the delivery once", got)
	}
}

// stoppingHandler handles push deliveries until its context ends: it
// signals started, then returns the context's error.
type stoppingHandler struct{ started chan struct{} }

func (h *stoppingHandler) Handles() []string { return []string{"push"} }

func (h *stoppingHandler) Handle(ctx context.Context, _, _ string, _ []byte) error {
	close(h.started)
	<-ctx.Done()
	return ctx.Err()
}

// A process stopping while it handles a delivery ends its claim: the
// delivery, not done and its attempt not counted, is taken at once by
// another process sharing the inbox (or by the stopping one's last pass
// before it exits), not ClaimHold later, when every replica may be gone.
func TestProcessorStoppingMidDeliveryReleasesItsClaim(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	put(t, inbox, "d0", "push")
	stopping := NewProcessor(inbox, []githubapp.EventHandler{&stoppingHandler{started: make(chan struct{})}}, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := stopping.ProcessPending(ctx)
		done <- err
	}()
	<-stopping.handlers["push"].(*stoppingHandler).started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("ProcessPending of the stopping process: %v, want context.Canceled", err)
	}
	other := &recordingHandler{events: []string{"push"}}
	n, err := NewProcessor(inbox, []githubapp.EventHandler{other}, zerolog.Nop()).ProcessPending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || strings.Join(other.ids(), ",") != "d0" {
		t.Fatalf("the other process handled %v (%d attempts); want d0 at once", other.ids(), n)
	}
	if d, _ := inbox.get("d0"); !d.Done || d.Attempts != 1 {
		t.Errorf("d0 = %+v; want done after one counted attempt", d)
	}
}

// cancelOnClaim is an inbox whose claims end the processor's context as
// they are made, as a process stopping right then sees (the database
// claimed; the caller had given up): the claim stands unless the caller
// kept it out of its context.
type cancelOnClaim struct {
	*fakeInbox
	cancel func()
}

func (c *cancelOnClaim) ClaimDeliveries(ctx context.Context, now time.Time, hold time.Duration, limit int) ([]Delivery, error) {
	ds, err := c.fakeInbox.ClaimDeliveries(ctx, now, hold, limit)
	c.cancel()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return ds, err
}

// A process stopping while it claims a delivery leaves it done or free for
// another process at once, never claimed by nobody until ClaimHold passes
// (the failover tests found a push stored, claimed and never processed).
func TestProcessorStoppingWhileItClaimsLeavesNoOrphanClaim(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	put(t, inbox, "d0", "push")
	ctx, cancel := context.WithCancel(context.Background())
	stopping := NewProcessor(&cancelOnClaim{fakeInbox: inbox, cancel: cancel}, []githubapp.EventHandler{&recordingHandler{events: []string{"push"}}}, zerolog.Nop())
	_, _ = stopping.ProcessPending(ctx)
	if d, _ := inbox.get("d0"); d.Done {
		return // handled before it stopped
	}
	other := &recordingHandler{events: []string{"push"}}
	if _, err := NewProcessor(inbox, []githubapp.EventHandler{other}, zerolog.Nop()).ProcessPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d, _ := inbox.get("d0"); !d.Done {
		t.Errorf("d0 = %+v after a stopping process claimed it: neither done nor taken by another process", d)
	}
}
