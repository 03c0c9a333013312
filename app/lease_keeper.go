package app

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue/record"
)

// leaseKeeper renews every lease the workers of this replica hold in one
// statement (leaser.RenewLeases) every LeaseTTL/3, instead of one per
// queue: a replica holding a thousand queues' leases sends one UPDATE per
// renewal, and one holding none sends none. Beside it, it records the
// replica's heartbeat and learns which replicas are alive (one statement):
// they divide the queues (preferredReplica); when the set changes,
// changed is called. A lease the statement does
// not return changed hands (or is gone): it is marked lost and its
// worker's syncs stop at once, as when a fenced write finds its token
// stale. A lease that could not be renewed before it may pass on (the
// database did not answer) is lost too.
type leaseKeeper struct {
	leases leaser
	holder string
	ttl    time.Duration
	now    func() time.Time
	timer  func(d time.Duration) (<-chan time.Time, func() bool)

	// changed, if set, is called (from run) when the live replicas
	// changed since the previous heartbeat.
	changed func(ctx context.Context)
	// spread: the replicas divide the queues; one that stops says so.
	spread bool

	mu   sync.Mutex
	held map[*heldLease]context.CancelFunc
	live []string // the replicas alive at the last heartbeat; nil before
}

// liveReplicas are the replicas alive at the last heartbeat (nil before
// the first).
func (k *leaseKeeper) liveReplicas() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.live
}

// beat records the heartbeat and the live replicas; it reports whether
// they changed since the previous one (not at the first).
func (k *leaseKeeper) beat(ctx context.Context) (bool, error) {
	live, err := k.leases.Heartbeat(ctx, k.holder, k.now(), k.ttl)
	if err != nil {
		return false, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	changed := k.live != nil && !slices.Equal(k.live, live)
	k.live = live
	return changed, nil
}

// add makes k renew h until drop; lost is called when h is lost.
func (k *leaseKeeper) add(h *heldLease, lost context.CancelFunc) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.held[h] = lost
}

// drop stops renewing h. A renewal already sent may still extend it; a
// release sent after drop returns is not undone by it (the database
// renews no released lease).
func (k *leaseKeeper) drop(h *heldLease) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.held, h)
}

// run renews the held leases every ttl/3 (every ttl/15 after a failure,
// while they still hold) until ctx ends.
func (k *leaseKeeper) run(ctx context.Context) {
	log := zerolog.Ctx(ctx)
	every := k.ttl / 3
	for {
		wait := every
		k.mu.Lock()
		for h := range k.held {
			if left := h.HeldUntil().Sub(k.now()); left < wait {
				wait = max(left, 0)
			}
		}
		k.mu.Unlock()
		fired, stop := k.timer(wait)
		select {
		case <-ctx.Done():
			stop()
			k.leave(ctx)
			return
		case <-fired:
		}
		stop()
		changed, berr := k.beat(ctx)
		if berr != nil && ctx.Err() == nil {
			log.Warn().Err(berr).Msg("failed to record this replica's heartbeat")
		}
		if changed && k.changed != nil {
			zerolog.Ctx(ctx).Info().Strs("replicas", k.liveReplicas()).Msg("the live replicas changed; the queues are divided again")
			k.changed(ctx)
		}
		if err := k.renew(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			log.Warn().Err(err).Msg("failed to renew the queues' leases; retrying while they hold")
			every = max(k.ttl/15, time.Millisecond)
			continue
		}
		every = k.ttl / 3
	}
}

// leave tells the other replicas, as this one stops, that it is gone (a
// heartbeat at the Unix epoch: never live), so that they take its queues
// at their next heartbeat rather than once its last one is a TTL old.
func (k *leaseKeeper) leave(ctx context.Context) {
	if !k.spread {
		return // the queues are not divided (SpreadOver)
	}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := k.leases.Heartbeat(lctx, k.holder, time.Unix(0, 0), k.ttl); err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("failed to tell the other replicas this one stops; they notice within the lease TTL")
	}
}

// renew renews every held lease in one statement, marking lost those it
// does not return, and, when the statement fails, those that may pass on
// by now. A lease past its time that the database still renews with its
// token (nobody took it: no other replica decided meanwhile) is kept: its
// GitHub writes were held back while it was past (leaseWriteGuard) and
// resume.
func (k *leaseKeeper) renew(ctx context.Context) error {
	asked := k.now()
	k.mu.Lock()
	batch := make(map[int64]*heldLease, len(k.held))
	var leases []record.Lease
	for h := range k.held {
		l := h.lease()
		batch[l.QueueID] = h
		leases = append(leases, l)
	}
	k.mu.Unlock()
	if len(leases) == 0 {
		return nil
	}
	renewed, err := k.leases.RenewLeases(ctx, k.holder, leases, asked, k.ttl)
	if err != nil {
		// Not renewed: those that may pass on by now are lost.
		k.mu.Lock()
		defer k.mu.Unlock()
		for h, lost := range k.held {
			if !k.now().Before(h.HeldUntil()) {
				h.lose()
				lost()
				delete(k.held, h)
			}
		}
		return err
	}
	kept := make(map[int64]record.Lease, len(renewed))
	for _, l := range renewed {
		kept[l.QueueID] = l
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, h := range batch {
		l, ok := kept[id]
		if ok && l.Token == h.Token() {
			h.renewed(l, asked, k.ttl)
			continue
		}
		h.lose()
		if lost, held := k.held[h]; held {
			lost()
			delete(k.held, h)
		}
	}
	return nil
}
