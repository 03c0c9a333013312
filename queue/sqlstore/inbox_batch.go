package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/mergequeue/mq/queue/record"
)

// maxDeliveryBatch bounds the deliveries committed in one transaction, and
// so the wait of the delivery that leads it.
const maxDeliveryBatch = 256

// deliveryBatcher commits concurrent PutDelivery calls together (group
// commit): a caller that finds no commit in progress leads one, taking
// every delivery waiting (its own included) into one transaction; the
// deliveries that arrive meanwhile wait, and when the commit is over the
// first of them leads the next one. Each caller returns only once the
// transaction holding its delivery committed (or failed: then every
// delivery of that transaction gets the error and none is acknowledged).
// One transaction per batch, not per delivery, and the insert prepared
// once per process, not per delivery: the writer connection, which every
// write of the process shares, is held for much less per delivery.
type deliveryBatcher struct {
	insert *sql.Stmt // deliveryInsert, prepared on the writer
	d      *Dialect

	mu      sync.Mutex
	waiting []*putDelivery
	leading bool // a commit is in progress, or handed to waiting[0]
	batches int  // transactions committed or failed (for tests)
}

// putDelivery is one PutDelivery call waiting for its commit.
type putDelivery struct {
	d     record.Delivery
	isNew bool
	err   error
	done  chan struct{} // closed once committed or failed
	lead  chan struct{} // closed when this call is to lead the next commit
}

func newDeliveryBatcher(ctx context.Context, writer *sql.DB, d *Dialect) (*deliveryBatcher, error) {
	stmt, err := writer.PrepareContext(ctx, d.rebind(deliveryInsert))
	if err != nil {
		return nil, fmt.Errorf("failed to prepare the delivery insert: %w", err)
	}
	return &deliveryBatcher{insert: stmt, d: d}, nil
}

// PutDelivery stores d unless a delivery with its ID exists, and reports
// whether d was new; a known ID changes nothing. It returns once the
// transaction holding d committed: concurrent calls are committed
// together (see deliveryBatcher).
func (s *Store) PutDelivery(ctx context.Context, d record.Delivery) (bool, error) {
	if d.ID == "" {
		return false, fmt.Errorf("failed to store %s delivery: empty delivery ID", d.Event)
	}
	b := s.deliveries
	if b == nil { // a Store built by hand (tests of migrations)
		return s.ops.PutDelivery(ctx, d)
	}
	p := &putDelivery{d: d, done: make(chan struct{}), lead: make(chan struct{})}
	b.mu.Lock()
	b.waiting = append(b.waiting, p)
	lead := !b.leading
	b.leading = true
	b.mu.Unlock()
	if !lead {
		select {
		case <-p.done:
			return p.isNew, p.err
		case <-p.lead:
		}
	}
	// Leading: the commit must not end with this caller's context, since
	// it holds other callers' deliveries.
	b.commit(context.WithoutCancel(ctx), s.writer)
	<-p.done
	return p.isNew, p.err
}

// commit takes the waiting deliveries (at most maxDeliveryBatch), commits
// them in one transaction, tells each caller, and hands the lead to the
// first caller still waiting, if any.
func (b *deliveryBatcher) commit(ctx context.Context, writer *sql.DB) {
	b.mu.Lock()
	n := min(len(b.waiting), maxDeliveryBatch)
	batch := append([]*putDelivery(nil), b.waiting[:n]...)
	b.waiting = append(b.waiting[:0:0], b.waiting[n:]...)
	b.mu.Unlock()

	isNew, err := b.insertAll(ctx, writer, batch)
	for i, p := range batch {
		p.err = err
		if err == nil {
			p.isNew = isNew[i]
		}
		close(p.done)
	}

	b.mu.Lock()
	b.batches++
	if len(b.waiting) > 0 {
		close(b.waiting[0].lead)
	} else {
		b.leading = false
	}
	b.mu.Unlock()
}

// insertAll inserts the batch's deliveries in one transaction and reports,
// once it committed, which were new. A batch of one is one statement,
// committed by itself.
func (b *deliveryBatcher) insertAll(ctx context.Context, writer *sql.DB, batch []*putDelivery) (isNew []bool, err error) {
	if len(batch) == 1 {
		n, err := insertDelivery(ctx, b.insert, b.d, batch[0].d)
		if err != nil {
			return nil, err
		}
		return []bool{n}, nil
	}
	tx, err := writer.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to store %d deliveries: failed to begin transaction: %w", len(batch), err)
	}
	defer func() {
		if err != nil {
			if rerr := rollback(tx); rerr != nil {
				err = fmt.Errorf("%w (and %v)", err, rerr)
			}
		}
	}()
	stmt := tx.StmtContext(ctx, b.insert)
	isNew = make([]bool, len(batch))
	for i, p := range batch {
		if isNew[i], err = insertDelivery(ctx, stmt, b.d, p.d); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("failed to store %d deliveries: failed to commit: %w", len(batch), err)
	}
	return isNew, nil
}

// insertDelivery runs the delivery insert (deliveryInsert, prepared) for d
// and reports whether it inserted a row.
func insertDelivery(ctx context.Context, stmt *sql.Stmt, dialect *Dialect, d record.Delivery) (bool, error) {
	res, err := stmt.ExecContext(ctx, dialect.args(columnArgs(deliveryColumns(&d)))...)
	if err != nil {
		return false, fmt.Errorf("failed to store delivery %s: %w", d.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("failed to store delivery %s: %w", d.ID, err)
	}
	return n == 1, nil
}

// close releases the prepared insert.
func (b *deliveryBatcher) close() error {
	if err := b.insert.Close(); err != nil {
		return fmt.Errorf("failed to close the delivery insert: %w", err)
	}
	return nil
}
