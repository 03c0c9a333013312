package memstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// Compile-time checks that both stores implement queue.Store.
var (
	_ queue.Store = (*Store)(nil)
	_ queue.Store = (*txStore)(nil)
)

// errTxDone is returned by a transaction's store used after WithTx returned.
var errTxDone = errors.New("memstore: transaction already ended")

// Store is the in-memory queue.Store. It is safe for concurrent use.
type Store struct {
	ops
}

// New returns an empty store.
func New() *Store {
	return &Store{ops: ops{d: newDB()}}
}

// QueueVersion returns a number that grows with every write that may
// change what the reads of queue queueID return: its row, its entries,
// runs, impacted targets and events, and the creation or deletion of any
// queue. A transaction's writes count as they are made; nobody can read
// them before it ends, and a rollback only makes a version change for
// nothing. It never blocks.
func (s *Store) QueueVersion(queueID int64) uint64 { return s.d.versions.Version(queueID) }

// txStore is the store a WithTx function receives: it works on the same data
// under the lock WithTx holds, and logs how to undo each write.
type txStore struct {
	ops
}

// txLog records how to undo the writes of one transaction.
type txLog struct {
	undo []func()
	done bool
}

// add records how to undo one write; outside a transaction it does nothing.
func (l *txLog) add(f func()) {
	if l != nil {
		l.undo = append(l.undo, f)
	}
}

func (l *txLog) rollback() {
	for i := len(l.undo) - 1; i >= 0; i-- {
		l.undo[i]()
	}
	l.undo = nil
}

// ops holds every store operation. Outside a transaction (tx nil) each call
// takes the mutex; inside one the mutex is already held and writes are logged.
type ops struct {
	d  *db
	tx *txLog
}

// begin checks the context and takes the lock unless a transaction holds it.
func (o *ops) begin(ctx context.Context) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memstore: %w", err)
	}
	if o.tx != nil {
		if o.tx.done {
			return nil, errTxDone
		}
		return func() {}, nil
	}
	o.d.mu.Lock()
	return o.d.mu.Unlock, nil
}

// WithTx runs fn in one transaction holding the store's lock. If fn returns
// an error or panics, every write it made is undone.
func (s *Store) WithTx(ctx context.Context, fn func(tx queue.Store) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("failed to begin transaction: %w", err)
	}
	s.d.mu.Lock()
	log := &txLog{}
	committed := false
	defer func() {
		if !committed {
			log.rollback()
		}
		log.done = true
		s.d.mu.Unlock()
	}()
	if err := fn(&txStore{ops: ops{d: s.d, tx: log}}); err != nil {
		return err
	}
	committed = true
	return nil
}

// WithTx on a transaction's store runs fn in the same transaction.
func (t *txStore) WithTx(ctx context.Context, fn func(tx queue.Store) error) error {
	if t.tx.done {
		return errTxDone
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: %w", err)
	}
	return fn(t)
}
