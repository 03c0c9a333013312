package inbox

import (
	"context"
	"time"
)

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

// Store is the durable store of webhook deliveries. Implementations must be
// safe for concurrent use.
type Store interface {
	// PutDelivery stores d unless a delivery with its ID exists; it reports
	// whether d was new. It returns only once d is durable: the Receiver
	// acknowledges a delivery on its word.
	PutDelivery(ctx context.Context, d Delivery) (bool, error)
	// PendingDeliveries returns up to limit deliveries not yet Done, oldest first.
	PendingDeliveries(ctx context.Context, limit int) ([]Delivery, error)
	// FinishDelivery records an attempt; done marks it processed.
	FinishDelivery(ctx context.Context, id string, done bool, errText string) error
}
