package sqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"sync/atomic"
)

// StatementCounter counts the statements a process sends to its database:
// every Exec and Query (prepared or not), every transaction's begin, commit
// and rollback. It wraps the driver of the store's database/sql pools
// (Connector), so that it counts every statement of the store, those its
// dialect package sends directly (leases, wake-ups) included. It is safe
// for concurrent use; the zero value is ready.
type StatementCounter struct{ n, prepared atomic.Int64 }

// Statements is the number of statements counted so far.
func (c *StatementCounter) Statements() int64 { return c.n.Load() }

// Prepared is the number of statements handed to the driver to parse so
// far: every Prepare, and every Exec or Query that no statement cache
// (CachingConnector) served. A driver with a cache of its own (pgx) may
// parse fewer.
func (c *StatementCounter) Prepared() int64 { return c.prepared.Load() }

// Connector returns inner counting its statements in c.
func (c *StatementCounter) Connector(inner driver.Connector) driver.Connector {
	return countingConnector{inner: inner, c: c}
}

// CachingConnector is Connector whose connections each keep up to size
// prepared statements by query text (stmtCache): an Exec or Query sent
// again on a connection reuses its statement instead of having the driver
// parse it again (size ≤ 0: no cache, as Connector). For a driver that
// does not cache statements itself (SQLite's; pgx does).
func (c *StatementCounter) CachingConnector(inner driver.Connector, size int) driver.Connector {
	return countingConnector{inner: inner, c: c, cache: max(size, 0)}
}

// DSNConnector is the connector of a driver that has none of its own: it
// opens name with d.
func DSNConnector(d driver.Driver, name string) driver.Connector {
	return dsnConnector{d: d, name: name}
}

type dsnConnector struct {
	d    driver.Driver
	name string
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.name) }
func (c dsnConnector) Driver() driver.Driver                        { return c.d }

type countingConnector struct {
	inner driver.Connector
	c     *StatementCounter
	// cache is the size of each connection's statement cache (0: none).
	cache int
}

func (k countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := k.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	kc := &countingConn{inner: conn, c: k.c}
	if k.cache > 0 {
		kc.stmts = newStmtCache(k.cache, &k.c.prepared)
	}
	return kc, nil
}

func (k countingConnector) Driver() driver.Driver { return k.inner.Driver() }

// countingConn forwards every interface database/sql looks for to the
// driver's connection (driver.ErrSkip when it has not got it, which makes
// database/sql fall back as it would without the wrapper).
type countingConn struct {
	inner driver.Conn
	c     *StatementCounter
	// stmts is the connection's statement cache (nil: none).
	stmts *stmtCache
}

var (
	_ driver.Connector          = countingConnector{}
	_ driver.ConnBeginTx        = (*countingConn)(nil)
	_ driver.ConnPrepareContext = (*countingConn)(nil)
	_ driver.ExecerContext      = (*countingConn)(nil)
	_ driver.QueryerContext     = (*countingConn)(nil)
	_ driver.Pinger             = (*countingConn)(nil)
	_ driver.SessionResetter    = (*countingConn)(nil)
	_ driver.Validator          = (*countingConn)(nil)
	_ driver.NamedValueChecker  = (*countingConn)(nil)
	_ driver.StmtExecContext    = (*countingStmt)(nil)
	_ driver.StmtQueryContext   = (*countingStmt)(nil)
	_ driver.NamedValueChecker  = (*countingStmt)(nil)
)

func (k *countingConn) Prepare(query string) (driver.Stmt, error) {
	return k.PrepareContext(context.Background(), query)
}

func (k *countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var st driver.Stmt
	var err error
	if p, ok := k.inner.(driver.ConnPrepareContext); ok {
		st, err = p.PrepareContext(ctx, query)
	} else {
		st, err = k.inner.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	k.c.prepared.Add(1)
	return &countingStmt{inner: st, conn: k}, nil
}

func (k *countingConn) Close() error {
	if k.stmts != nil {
		k.stmts.close()
	}
	return k.inner.Close()
}

func (k *countingConn) Begin() (driver.Tx, error) {
	return k.BeginTx(context.Background(), driver.TxOptions{})
}

func (k *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	k.c.n.Add(1)
	var tx driver.Tx
	var err error
	if b, ok := k.inner.(driver.ConnBeginTx); ok {
		tx, err = b.BeginTx(ctx, opts)
	} else {
		tx, err = k.inner.Begin() //nolint:staticcheck // the driver has no BeginTx
	}
	if err != nil {
		return nil, err
	}
	return countingTx{inner: tx, c: k.c}, nil
}

func (k *countingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if k.stmts != nil {
		r, err := k.stmts.exec(ctx, k.inner, query, args)
		if !errors.Is(err, errUncached) {
			k.c.n.Add(1)
			return r, err
		}
	}
	e, ok := k.inner.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	r, err := e.ExecContext(ctx, query, args)
	if !errors.Is(err, driver.ErrSkip) {
		k.c.n.Add(1)
		k.c.prepared.Add(1)
	}
	return r, err
}

func (k *countingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if k.stmts != nil {
		r, err := k.stmts.query(ctx, k.inner, query, args)
		if !errors.Is(err, errUncached) {
			k.c.n.Add(1)
			return r, err
		}
	}
	q, ok := k.inner.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	r, err := q.QueryContext(ctx, query, args)
	if !errors.Is(err, driver.ErrSkip) {
		k.c.n.Add(1)
		k.c.prepared.Add(1)
	}
	return r, err
}

func (k *countingConn) Ping(ctx context.Context) error {
	if p, ok := k.inner.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (k *countingConn) ResetSession(ctx context.Context) error {
	if r, ok := k.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (k *countingConn) IsValid() bool {
	if v, ok := k.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (k *countingConn) CheckNamedValue(v *driver.NamedValue) error {
	if c, ok := k.inner.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(v)
	}
	return driver.ErrSkip
}

type countingStmt struct {
	inner driver.Stmt
	conn  *countingConn
}

func (s *countingStmt) Close() error  { return s.inner.Close() }
func (s *countingStmt) NumInput() int { return s.inner.NumInput() }

func (s *countingStmt) Exec(args []driver.Value) (driver.Result, error) {
	s.conn.c.n.Add(1)
	return s.inner.Exec(args) //nolint:staticcheck // database/sql calls it only when the driver has no ExecContext
}

func (s *countingStmt) Query(args []driver.Value) (driver.Rows, error) {
	s.conn.c.n.Add(1)
	return s.inner.Query(args) //nolint:staticcheck // as Exec
}

func (s *countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	e, ok := s.inner.(driver.StmtExecContext)
	if !ok {
		return nil, errors.New("the SQL driver's statements do not take a context")
	}
	s.conn.c.n.Add(1)
	return e.ExecContext(ctx, args)
}

func (s *countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := s.inner.(driver.StmtQueryContext)
	if !ok {
		return nil, errors.New("the SQL driver's statements do not take a context")
	}
	s.conn.c.n.Add(1)
	return q.QueryContext(ctx, args)
}

// CheckNamedValue is the statement's checker, else its connection's (as
// database/sql looks for them).
func (s *countingStmt) CheckNamedValue(v *driver.NamedValue) error {
	if c, ok := s.inner.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(v)
	}
	return s.conn.CheckNamedValue(v)
}

type countingTx struct {
	inner driver.Tx
	c     *StatementCounter
}

func (t countingTx) Commit() error {
	t.c.n.Add(1)
	return t.inner.Commit()
}

func (t countingTx) Rollback() error {
	t.c.n.Add(1)
	return t.inner.Rollback()
}
