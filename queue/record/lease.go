package record

import "time"

// Lease is a replica's hold on the decisions of one queue: Holder decides
// for QueueID until ExpiresAt unless it renews, and every write it makes
// for the queue carries Token (queue.Fence). Token grows each time a lease
// changes hands, so a write of a former holder is told apart from the
// current holder's.
type Lease struct {
	QueueID   int64
	Holder    string
	Token     int64
	ExpiresAt time.Time
}
