package inbox

import (
	"context"
	"time"

	"github.com/mergequeue/mq/queue/record"
)

// Delivery is one GitHub webhook delivery, kept durably before it is
// acknowledged and processed from the inbox afterwards. It is declared in
// queue/record, which the stores share, so that they need not import this
// package.
type Delivery = record.Delivery

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
	// ClaimDeliveries claims, until now+hold, up to limit pending
	// deliveries that no claim holds, oldest first: no other claim — of any
	// process sharing the store — returns them until the claim ends
	// (ReleaseDelivery, or now+hold passed).
	ClaimDeliveries(ctx context.Context, now time.Time, hold time.Duration, limit int) ([]Delivery, error)
	// RenewClaim extends the claim of a delivery not done to until.
	RenewClaim(ctx context.Context, id string, until time.Time) error
	// ReleaseDelivery records an attempt at a claimed delivery as
	// FinishDelivery does and ends its claim; one not done is claimed again
	// from retryAt on (zero: at once).
	ReleaseDelivery(ctx context.Context, id string, done bool, errText string, retryAt time.Time) error
}
