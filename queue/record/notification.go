package record

import "time"

// NotificationCursor is one notification target's position in the event
// log and its retry state. Target is the target's key, which its user
// chooses (app/notify uses the kind and a SHA-256 of the URL, never the
// URL: a chat webhook's URL is a credential); errors never quote it.
type NotificationCursor struct {
	Target      string
	LastEventID int64
	// Attempts counts the failed deliveries of the event after LastEventID.
	Attempts      int
	NextAttemptAt time.Time // zero = due now
	LastError     string
}

// Pruned counts what a store's Prune deleted.
type Pruned struct {
	Deliveries int64
	Events     int64
	Notices    int64
}
