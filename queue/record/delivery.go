package record

import "time"

// Delivery is one GitHub webhook delivery, kept durably before it is
// acknowledged and processed from the inbox afterwards.
type Delivery struct {
	ID         string // X-GitHub-Delivery
	Event      string // X-GitHub-Event
	Payload    []byte
	ReceivedAt time.Time
	// Attempts counts processing attempts; Done is set once processed
	// (successfully or given up); Error holds the last failure.
	Attempts int
	Done     bool
	Error    string
}

// InboxStats is the inbox's backlog at one instant.
type InboxStats struct {
	// Pending counts deliveries not yet done.
	Pending int
	// OldestPending is when the oldest of them was received (zero when
	// none is pending).
	OldestPending time.Time
}
