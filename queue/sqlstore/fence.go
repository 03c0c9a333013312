package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// fencedWriter is the writer of a Store outside a transaction: a write
// whose context carries a queue.Fence runs in a transaction that first
// checks the fence (the dialect's FenceGuard), so that a stale token
// changes nothing; other writes run as they are. ExecContext and scanRow
// are fenced; QueryContext and QueryRowContext are not (the store uses
// them on the writer only for what is no queue's data, or for reads).
type fencedWriter struct {
	execer // the writer, in the dialect
	s      *Store
}

// fenceArgs returns the guard and its arguments for ctx's fence, or "" when
// ctx carries none or the dialect needs none.
func (s *Store) fenceArgs(ctx context.Context) (string, []any) {
	f, ok := queue.FenceOf(ctx)
	if !ok || s.dialect.FenceGuard == "" {
		return "", nil
	}
	return s.dialect.FenceGuard, []any{f.QueueID(), f.Token(), f.Holder()}
}

// fenced runs fn in a transaction guarded by ctx's fence; ErrLeaseLost
// (nothing written) if the fence's token is stale.
func (s *Store) fenced(ctx context.Context, guard string, args []any, fn func(tx execer) error) error {
	err := s.WithGuardedTx(ctx, guard, args, func(tx queue.Store) error {
		return fn(tx.(*txStore).wr)
	})
	return leaseLost(ctx, err)
}

func (w fencedWriter) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	guard, gargs := w.s.fenceArgs(ctx)
	if guard == "" {
		return w.execer.ExecContext(ctx, query, args...)
	}
	var res sql.Result
	err := w.s.fenced(ctx, guard, gargs, func(tx execer) error {
		var err error
		res, err = tx.ExecContext(ctx, query, args...)
		return err
	})
	return res, err
}

// scanRow runs query (a write returning one row) and scans its row into
// dest.
func (w fencedWriter) scanRow(ctx context.Context, dest []any, query string, args ...any) error {
	guard, gargs := w.s.fenceArgs(ctx)
	if guard == "" {
		return w.execer.QueryRowContext(ctx, query, args...).Scan(dest...)
	}
	return w.s.fenced(ctx, guard, gargs, func(tx execer) error {
		return tx.QueryRowContext(ctx, query, args...).Scan(dest...)
	})
}

// rowScanner is an execer that runs a row-returning write itself.
type rowScanner interface {
	scanRow(ctx context.Context, dest []any, query string, args ...any) error
}

// scanRow runs a write returning one row on e (fenced when e is the
// Store's writer) and scans the row into dest.
func scanRow(ctx context.Context, e execer, dest []any, query string, args ...any) error {
	if rs, ok := e.(rowScanner); ok {
		return rs.scanRow(ctx, dest, query, args...)
	}
	return e.QueryRowContext(ctx, query, args...).Scan(dest...)
}

// leaseLost turns a failed fence guard into queue.ErrLeaseLost.
func leaseLost(ctx context.Context, err error) error {
	if !errors.Is(err, ErrGuardFailed) {
		return err
	}
	f, _ := queue.FenceOf(ctx)
	return fmt.Errorf("queue %d, fencing token %d: %w", f.QueueID(), f.Token(), queue.ErrLeaseLost)
}
