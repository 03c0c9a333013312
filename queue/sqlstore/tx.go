package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// execer is what *sql.DB and *sql.Tx have in common.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// ops holds every store operation. rd runs reads, wr runs writes; outside a
// transaction they are the read pool and the writer, inside one both are the
// transaction.
type ops struct {
	rd execer
	wr execer
	// chg learns of the writes that change a queue's reads (see
	// changes.go): the store's versions outside a transaction, the
	// transaction's pending changes inside one.
	chg changeSink
	// d is the database's dialect.
	d *Dialect
}

// txStore is a store bound to one transaction.
type txStore struct {
	ops
}

// WithTx runs fn in one IMMEDIATE write transaction on the writer
// connection. fn's store sends reads and writes through the transaction. If
// fn returns an error or panics, the transaction is rolled back. Under a
// context carrying a queue.Fence, the transaction is guarded by it (see
// Dialect.FenceGuard): fn runs only while the fence's token is current,
// else nothing is written and the error wraps queue.ErrLeaseLost.
func (s *Store) WithTx(ctx context.Context, fn func(tx queue.Store) error) error {
	return s.WithGuardedTx(ctx, "", nil, fn)
}

// ErrGuardFailed is returned by WithGuardedTx when its guard found no row.
var ErrGuardFailed = errors.New("the transaction's guard does not hold")

// WithGuardedTx is WithTx whose transaction first runs guard (a query in
// the store's statement dialect, with args; "" for none): if it returns no
// row, fn is not run, nothing is written and the error wraps
// ErrGuardFailed. A guard that locks the rows it reads (FOR SHARE) holds
// them until the transaction ends: it is how a write is fenced (see
// queue/postgres's leases). With no guard, a fence in ctx guards it (see
// WithTx).
func (s *Store) WithGuardedTx(ctx context.Context, guard string, args []any, fn func(tx queue.Store) error) (err error) {
	fencedByCtx := false
	if guard == "" {
		guard, args = s.fenceArgs(ctx)
		fencedByCtx = guard != ""
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("failed to begin transaction: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			if rerr := rollback(tx); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
	}()
	if guard != "" {
		var one int
		err := inDialect(tx, s.dialect).QueryRowContext(ctx, guard, args...).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			if fencedByCtx {
				return leaseLost(ctx, ErrGuardFailed)
			}
			return ErrGuardFailed
		}
		if err != nil {
			return fmt.Errorf("failed to check the transaction's guard: %w", err)
		}
	}
	pending := &pendingChanges{}
	if err := fn(&txStore{ops: ops{rd: inDialect(tx, s.dialect), wr: inDialect(tx, s.dialect), chg: pending, d: s.dialect}}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("failed to commit transaction: %w", err)
	}
	committed = true
	pending.apply(s)
	return nil
}

// WithTx on a transaction-bound store runs fn in the same transaction.
func (t *txStore) WithTx(_ context.Context, fn func(tx queue.Store) error) error {
	return fn(t)
}

// rollback rolls tx back; a transaction already ended is no error.
func rollback(tx *sql.Tx) error {
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("failed to roll back: %w", err)
	}
	return nil
}
