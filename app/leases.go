package app

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/mergequeue/mq/queue/record"
)

// Lease timing. A replica holds a queue's lease for LeaseTTL from before
// each renewal, renews it every LeaseTTL/3 (all its leases in one
// statement: leaseKeeper), and a replica that does not
// hold it tries to take it every LeaseTTL/3: a holder killed outright is
// replaced within about 4/3 LeaseTTL. No GitHub write starts with less than
// minWriteWindow of the lease left, and each is cut off when the lease may
// pass on (leaseWriteGuard): every write of the holder ends within the
// lease.
const (
	LeaseTTL       = 15 * time.Second
	minWriteWindow = 5 * time.Second
)

// leaser is what the workers hold the queues' leases with (the database;
// on SQLite every lease is always held).
type leaser interface {
	// AcquireLease makes holder the decision-maker of queueID until
	// now+ttl unless another holder's lease is live (ok false).
	AcquireLease(ctx context.Context, queueID int64, holder string, now time.Time, ttl time.Duration) (record.Lease, bool, error)
	// RenewLeases extends, in one statement, every lease of held that
	// holder still holds with its token (and did not release) to now+ttl,
	// and returns those; a lease it does not return changed hands.
	RenewLeases(ctx context.Context, holder string, held []record.Lease, now time.Time, ttl time.Duration) ([]record.Lease, error)
	// ReleaseLease gives l up at once.
	ReleaseLease(ctx context.Context, l record.Lease) error
	// Heartbeat records that replica name is alive at now and returns
	// the replicas alive (seen within ttl), itself included, sorted.
	Heartbeat(ctx context.Context, name string, now time.Time, ttl time.Duration) ([]string, error)
}

// ReplicaName names this process among the replicas sharing a database:
// host, process ID and a random part (a restarted process is another
// replica: it holds none of its former leases).
func ReplicaName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "mq"
	}
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), rand.Text()[:8])
}

// heldLease is a queue.Fence: the lease a worker holds, as last renewed.
type heldLease struct {
	mu    sync.Mutex
	l     record.Lease
	until time.Time // zero once lost
}

func newHeldLease(l record.Lease, askedAt time.Time, ttl time.Duration) *heldLease {
	return &heldLease{l: l, until: askedAt.Add(ttl)}
}

// QueueID, Holder and Token are the lease's (queue.Fence).
func (h *heldLease) QueueID() int64 { return h.lease().QueueID }
func (h *heldLease) Holder() string { return h.lease().Holder }
func (h *heldLease) Token() int64   { return h.lease().Token }

// HeldUntil is when the lease may pass on at the earliest: the renewal's
// request time plus the TTL (the database counts from later); zero once
// lost.
func (h *heldLease) HeldUntil() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.until
}

func (h *heldLease) lease() record.Lease {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.l
}

// renewed records a renewal asked at askedAt.
func (h *heldLease) renewed(l record.Lease, askedAt time.Time, ttl time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.until.IsZero() {
		h.l, h.until = l, askedAt.Add(ttl)
	}
}

// lose marks the lease lost for good.
func (h *heldLease) lose() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.until = time.Time{}
}
