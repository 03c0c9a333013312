package sqlstore

import (
	"context"
	"database/sql"
)

// Dialect is what differs between the SQL databases the store runs on. The
// statements are written once, in the SQL both SQLite and PostgreSQL
// accept, with SQLite's "?" and "?N" placeholders; the differences left
// are these, and the schemas (each store's migrations) that give both the
// same column types: integers, booleans and times (unix nanoseconds) are
// 64-bit integers, text is text, bytes are blobs.
type Dialect struct {
	// Name names the database in errors ("SQLite", "PostgreSQL").
	Name string
	// Rebind rewrites a statement's placeholders into the driver's
	// (nil: the driver takes them as written).
	Rebind func(query string) string
	// Args converts the arguments of a statement into values the driver
	// stores in the columns above (nil: as they are). It must not modify
	// args in place.
	Args func(args []any) []any
	// IsUnique reports whether err is a unique or primary key violation.
	IsUnique func(err error) bool
	// SharedClaims says that the schema keeps the claims of inbox
	// deliveries (deliveries.held_until) and of notification cursors
	// (notification_cursors.holder, held_until) and that the database takes
	// rows with FOR UPDATE SKIP LOCKED: several processes share the inbox
	// and the outbox. Without it the claims are kept in the Store's memory,
	// which is enough for the one process a database without it serves.
	SharedClaims bool
	// FenceGuard checks a queue.Fence (arguments: queue ID, token, holder):
	// a query returning a row while the token is the queue's, locking it
	// until the transaction ends. Every write made under a context carrying
	// a fence runs in a transaction that runs it first, and changes nothing
	// if it returns no row (queue.ErrLeaseLost). Empty: the database serves
	// one process, whose leases are always held; nothing is checked.
	FenceGuard string
}

func (d *Dialect) rebind(q string) string {
	if d == nil || d.Rebind == nil {
		return q
	}
	return d.Rebind(q)
}

func (d *Dialect) args(args []any) []any {
	if d == nil || d.Args == nil {
		return args
	}
	return d.Args(args)
}

func (d *Dialect) isUnique(err error) bool {
	return err != nil && d != nil && d.IsUnique != nil && d.IsUnique(err)
}

// BoolsAsIntegers is an Args for a driver that does not store a Go bool in
// an integer column: it turns bools into 0 or 1. (The store's own
// driver.Valuers never yield a bool.)
func BoolsAsIntegers(args []any) []any {
	var out []any // a copy, made at the first bool
	for i, a := range args {
		b, ok := a.(bool)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = int64(0)
		if b {
			out[i] = int64(1)
		}
	}
	if out == nil {
		return args
	}
	return out
}

// dialectExecer runs the statements of an execer in a dialect.
type dialectExecer struct {
	e execer
	d *Dialect
}

// inDialect is e speaking d; e itself when d changes nothing.
func inDialect(e execer, d *Dialect) execer {
	if d == nil || d.Rebind == nil && d.Args == nil {
		return e
	}
	return dialectExecer{e: e, d: d}
}

func (x dialectExecer) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return x.e.ExecContext(ctx, x.d.rebind(query), x.d.args(args)...)
}

func (x dialectExecer) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return x.e.QueryContext(ctx, x.d.rebind(query), x.d.args(args)...)
}

func (x dialectExecer) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return x.e.QueryRowContext(ctx, x.d.rebind(query), x.d.args(args)...)
}
