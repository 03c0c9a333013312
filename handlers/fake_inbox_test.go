package handlers

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mergequeue/mq/handlers/inbox"
)

// fakeInbox is an in-memory inbox.Store, for running the handlers through
// the processor's dispatch.
type fakeInbox struct {
	mu    sync.Mutex
	order []string
	byID  map[string]*inbox.Delivery
	held  map[string]time.Time // claims: id → claimable again at
}

func newFakeInbox() *fakeInbox {
	return &fakeInbox{byID: make(map[string]*inbox.Delivery), held: make(map[string]time.Time)}
}

func (f *fakeInbox) ClaimDeliveries(_ context.Context, now time.Time, hold time.Duration, limit int) ([]inbox.Delivery, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []inbox.Delivery
	for _, id := range f.order {
		if d := f.byID[id]; !d.Done && len(out) < limit && !f.held[id].After(now) {
			f.held[id] = now.Add(hold)
			out = append(out, *d)
		}
	}
	return out, nil
}

func (f *fakeInbox) RenewClaim(_ context.Context, id string, until time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held[id] = until
	return nil
}

func (f *fakeInbox) ReleaseDelivery(ctx context.Context, id string, done bool, errText string, retryAt time.Time) error {
	if err := f.FinishDelivery(ctx, id, done, errText); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held[id] = retryAt
	return nil
}

func (f *fakeInbox) PutDelivery(_ context.Context, d inbox.Delivery) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.byID[d.ID]; ok {
		return false, nil
	}
	f.byID[d.ID] = &d
	f.order = append(f.order, d.ID)
	return true, nil
}

func (f *fakeInbox) PendingDeliveries(_ context.Context, limit int) ([]inbox.Delivery, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []inbox.Delivery
	for _, id := range f.order {
		if d := f.byID[id]; !d.Done && len(out) < limit {
			out = append(out, *d)
		}
	}
	return out, nil
}

func (f *fakeInbox) FinishDelivery(_ context.Context, id string, done bool, errText string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.byID[id]
	if !ok {
		return fmt.Errorf("no delivery %s", id)
	}
	d.Attempts++
	d.Done = done
	d.Error = errText
	return nil
}

func (f *fakeInbox) get(id string) (inbox.Delivery, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.byID[id]
	if !ok {
		return inbox.Delivery{}, false
	}
	return *d, true
}
