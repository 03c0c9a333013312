package sqlstore

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"reflect"
	"sync/atomic"
)

// stmtCache keeps one connection's prepared statements by query text, up
// to size of them, the least recently used leaving first, so that a query
// the store sends again runs without being parsed again (SQLite's pure-Go
// driver spends most of a point read parsing it). A connection is used by
// one goroutine at a time (database/sql), and so is its cache: it has no
// lock.
//
// Guarantees: a statement runs for one caller at a time (a query whose
// statement still has rows open runs uncached, as the driver would run
// it); every statement prepared is closed, when it leaves the cache (once
// its rows are closed) or when the connection closes; a statement that
// failed is closed and prepared again the next time, so an error never
// leaves a statement in an unknown state for the next caller.
type stmtCache struct {
	size    int
	byQuery map[string]*list.Element
	lru     *list.List // of *cachedStmt, most recently used first
	// prepared counts the statements this cache had the driver prepare.
	prepared *atomic.Int64
}

type cachedStmt struct {
	query string
	st    driver.Stmt
	// busy: its rows are open. evicted: out of the cache, to be closed
	// when they close.
	busy, evicted bool
}

func newStmtCache(size int, prepared *atomic.Int64) *stmtCache {
	return &stmtCache{size: size, byQuery: map[string]*list.Element{}, lru: list.New(), prepared: prepared}
}

// errUncached makes the caller run a query without the cache: its
// statement is in use by open rows, or the driver's statements do not take
// a context.
var errUncached = errors.New("statement not cached")

// get returns the statement for query, preparing it on conn when it is not
// cached (errUncached when the cached one is busy).
func (c *stmtCache) get(ctx context.Context, conn driver.Conn, query string) (*cachedStmt, error) {
	if el, ok := c.byQuery[query]; ok {
		cs := el.Value.(*cachedStmt)
		if cs.busy {
			return nil, errUncached
		}
		c.lru.MoveToFront(el)
		return cs, nil
	}
	p, ok := conn.(driver.ConnPrepareContext)
	if !ok {
		return nil, errUncached
	}
	st, err := p.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.prepared.Add(1)
	_, execs := st.(driver.StmtExecContext)
	_, queries := st.(driver.StmtQueryContext)
	if !execs || !queries {
		_ = st.Close()
		return nil, errUncached
	}
	cs := &cachedStmt{query: query, st: st}
	c.byQuery[query] = c.lru.PushFront(cs)
	for c.lru.Len() > c.size {
		c.evict(c.lru.Back().Value.(*cachedStmt))
	}
	return cs, nil
}

// evict takes cs out of the cache and closes it, or marks it to be closed
// when its rows close.
func (c *stmtCache) evict(cs *cachedStmt) {
	if el, ok := c.byQuery[cs.query]; ok && el.Value == cs {
		c.lru.Remove(el)
		delete(c.byQuery, cs.query)
	}
	cs.evicted = true
	if !cs.busy {
		_ = cs.st.Close()
	}
}

// exec runs query with args on its cached statement.
func (c *stmtCache) exec(ctx context.Context, conn driver.Conn, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.get(ctx, conn, query)
	if err != nil {
		return nil, err
	}
	r, err := cs.st.(driver.StmtExecContext).ExecContext(ctx, args)
	if err != nil {
		c.evict(cs)
	}
	return r, err
}

// query runs query with args on its cached statement, which is busy until
// the rows returned are closed.
func (c *stmtCache) query(ctx context.Context, conn driver.Conn, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, err := c.get(ctx, conn, query)
	if err != nil {
		return nil, err
	}
	rows, err := cs.st.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		c.evict(cs)
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: rows, cache: c, stmt: cs}, nil
}

// close closes every statement of the cache, busy or not: the connection
// is closing.
func (c *stmtCache) close() {
	for el := c.lru.Front(); el != nil; el = el.Next() {
		_ = el.Value.(*cachedStmt).st.Close()
	}
	c.byQuery, c.lru = map[string]*list.Element{}, list.New()
}

// cachedRows are a cached statement's rows: closing them frees the
// statement for the next caller (or closes it, if it left the cache
// meanwhile). They forward the column types the driver's rows tell.
type cachedRows struct {
	driver.Rows
	cache  *stmtCache
	stmt   *cachedStmt
	closed bool
}

func (r *cachedRows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.Rows.Close()
	r.stmt.busy = false
	if err != nil && !r.stmt.evicted {
		r.cache.evict(r.stmt)
	} else if r.stmt.evicted {
		_ = r.stmt.st.Close()
	}
	return err
}

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

func (r *cachedRows) HasNextResultSet() bool {
	n, ok := r.Rows.(driver.RowsNextResultSet)
	return ok && n.HasNextResultSet()
}

func (r *cachedRows) NextResultSet() error {
	if n, ok := r.Rows.(driver.RowsNextResultSet); ok {
		return n.NextResultSet()
	}
	return io.EOF
}
