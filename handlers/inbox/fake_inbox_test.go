package inbox

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// fakeInbox is an in-memory Store.
type fakeInbox struct {
	mu       sync.Mutex
	order    []string
	byID     map[string]*Delivery
	putErr   error
	readErr  error
	finishes []finishCall
	heldTill map[string]time.Time // claims: id → claimable again at
	renewals int
}

type finishCall struct {
	ID      string
	Done    bool
	ErrText string
}

func newFakeInbox() *fakeInbox {
	return &fakeInbox{byID: make(map[string]*Delivery), heldTill: make(map[string]time.Time)}
}

func (f *fakeInbox) PutDelivery(_ context.Context, d Delivery) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.putErr != nil {
		return false, f.putErr
	}
	if _, ok := f.byID[d.ID]; ok {
		return false, nil
	}
	f.byID[d.ID] = &d
	f.order = append(f.order, d.ID)
	return true, nil
}

func (f *fakeInbox) PendingDeliveries(_ context.Context, limit int) ([]Delivery, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.readErr != nil {
		return nil, f.readErr
	}
	var out []Delivery
	for _, id := range f.order {
		if d := f.byID[id]; !d.Done && len(out) < limit {
			out = append(out, *d)
		}
	}
	return out, nil
}

func (f *fakeInbox) ClaimDeliveries(_ context.Context, now time.Time, hold time.Duration, limit int) ([]Delivery, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.readErr != nil {
		return nil, f.readErr
	}
	var out []Delivery
	for _, id := range f.order {
		if d := f.byID[id]; !d.Done && len(out) < limit && !f.heldTill[id].After(now) {
			f.heldTill[id] = now.Add(hold)
			out = append(out, *d)
		}
	}
	return out, nil
}

func (f *fakeInbox) RenewClaim(_ context.Context, id string, until time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.heldTill[id] = until
	f.renewals++
	return nil
}

func (f *fakeInbox) renewCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.renewals
}

func (f *fakeInbox) ReleaseDelivery(ctx context.Context, id string, done bool, errText string, retryAt time.Time) error {
	if err := f.FinishDelivery(ctx, id, done, errText); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.heldTill[id] = retryAt
	return nil
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
	f.finishes = append(f.finishes, finishCall{id, done, errText})
	return nil
}

func (f *fakeInbox) get(id string) (Delivery, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.byID[id]
	if !ok {
		return Delivery{}, false
	}
	return *d, true
}

func (f *fakeInbox) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.order)
}
