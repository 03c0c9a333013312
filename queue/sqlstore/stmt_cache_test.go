package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"strings"
	"testing"
)

// fakeDB is a driver whose statements answer "SELECT n" with the one row
// n and fail on "FAIL"; it records what its statements went through.
type fakeDB struct {
	prepared, closed, uncached int
	open                       map[*fakeStmt]bool
}

func (d *fakeDB) Open(string) (driver.Conn, error) { return &fakeConn{db: d}, nil }

type fakeConn struct{ db *fakeDB }

func (c *fakeConn) Prepare(q string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), q)
}

func (c *fakeConn) PrepareContext(_ context.Context, q string) (driver.Stmt, error) {
	if strings.HasPrefix(q, "SYNTAX") {
		return nil, errors.New("syntax error")
	}
	c.db.prepared++
	s := &fakeStmt{db: c.db, q: q}
	c.db.open[s] = true
	return s, nil
}

// QueryContext is the driver's own path, without a prepared statement
// kept: the cache falls back to it when the cached statement is busy.
func (c *fakeConn) QueryContext(_ context.Context, q string, _ []driver.NamedValue) (driver.Rows, error) {
	c.db.uncached++
	return &fakeRows{val: strings.TrimPrefix(q, "SELECT ")}, nil
}

func (c *fakeConn) Close() error              { return nil }
func (c *fakeConn) Begin() (driver.Tx, error) { return fakeTx{}, nil }

type fakeTx struct{}

func (fakeTx) Commit() error   { return nil }
func (fakeTx) Rollback() error { return nil }

type fakeStmt struct {
	db     *fakeDB
	q      string
	closed bool
	// rows: the rows of this statement now open (a real driver's
	// statement runs one query at a time).
	rows *fakeRows
}

func (s *fakeStmt) Close() error {
	if s.closed {
		return errors.New("statement closed twice")
	}
	s.closed = true
	s.db.closed++
	delete(s.db.open, s)
	return nil
}

func (s *fakeStmt) NumInput() int { return -1 }

func (s *fakeStmt) Exec([]driver.Value) (driver.Result, error) { return nil, errors.New("not used") }

func (s *fakeStmt) Query([]driver.Value) (driver.Rows, error) { return nil, errors.New("not used") }

func (s *fakeStmt) ExecContext(context.Context, []driver.NamedValue) (driver.Result, error) {
	if s.closed {
		return nil, errors.New("exec on a closed statement")
	}
	if s.q == "FAIL" {
		return nil, errors.New("constraint failed")
	}
	return driver.RowsAffected(1), nil
}

func (s *fakeStmt) QueryContext(context.Context, []driver.NamedValue) (driver.Rows, error) {
	if s.closed {
		return nil, errors.New("query on a closed statement")
	}
	if s.rows != nil {
		return nil, errors.New("statement reused while its rows are open")
	}
	s.rows = &fakeRows{val: strings.TrimPrefix(s.q, "SELECT "), stmt: s}
	return s.rows, nil
}

type fakeRows struct {
	val  string
	done bool
	stmt *fakeStmt
}

func (r *fakeRows) Columns() []string { return []string{"n"} }

func (r *fakeRows) Close() error {
	if r.stmt != nil {
		r.stmt.rows = nil
	}
	return nil
}

func (r *fakeRows) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	r.done = true
	dest[0] = r.val
	return nil
}

// openFake opens a pool of one connection to a fakeDB through a
// CachingConnector of size.
func openFake(t *testing.T, size int) (*sql.DB, *fakeDB, *StatementCounter) {
	t.Helper()
	d := &fakeDB{open: map[*fakeStmt]bool{}}
	c := &StatementCounter{}
	db := sql.OpenDB(c.CachingConnector(DSNConnector(d, ""), size))
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	return db, d, c
}

func selectOne(t *testing.T, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, query, want string) {
	t.Helper()
	var got string
	if err := q.QueryRowContext(context.Background(), query).Scan(&got); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if got != want {
		t.Fatalf("%s = %q, want %q", query, got, want)
	}
}

// A query sent again on a connection reuses its statement: parsed once,
// counted each time.
func TestStatementCacheParsesAQueryOnce(t *testing.T) {
	db, d, c := openFake(t, 8)
	for range 10 {
		selectOne(t, db, "SELECT 1", "1")
		if _, err := db.ExecContext(context.Background(), "UPDATE"); err != nil {
			t.Fatal(err)
		}
	}
	if d.prepared != 2 {
		t.Errorf("two queries sent 10 times each were prepared %d times, want 2", d.prepared)
	}
	if c.Prepared() != 2 || c.Statements() != 20 {
		t.Errorf("counter: %d prepared, %d statements; want 2 and 20", c.Prepared(), c.Statements())
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if len(d.open) != 0 {
		t.Errorf("%d statements left open after the pool closed", len(d.open))
	}
}

// A query whose cached statement still has rows open (the same query run
// again inside a transaction while the first one is read) runs uncached,
// and both give their own rows; afterwards the cached statement serves
// again.
func TestStatementCacheRunsAQueryInUseUncached(t *testing.T) {
	db, d, _ := openFake(t, 8)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	outer, err := tx.QueryContext(ctx, "SELECT 7")
	if err != nil {
		t.Fatal(err)
	}
	selectOne(t, tx, "SELECT 7", "7")
	if d.uncached != 1 {
		t.Errorf("the nested query ran %d times uncached, want 1", d.uncached)
	}
	var got string
	if !outer.Next() || outer.Scan(&got) != nil || got != "7" {
		t.Fatalf("the outer rows gave %q (%v), want 7", got, outer.Err())
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	selectOne(t, tx, "SELECT 7", "7")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if d.uncached != 1 || d.prepared != 1 {
		t.Errorf("after the rows closed: %d uncached runs, %d prepared; want 1 and 1", d.uncached, d.prepared)
	}
}

// The least recently used statement leaves the cache beyond its size; one
// whose rows are open is closed only once they close.
func TestStatementCacheEvictsTheLeastRecentlyUsed(t *testing.T) {
	db, d, _ := openFake(t, 2)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	open, err := conn.QueryContext(ctx, "SELECT a")
	if err != nil {
		t.Fatal(err)
	}
	selectOne(t, conn, "SELECT b", "b")
	selectOne(t, conn, "SELECT c", "c") // a leaves the cache, its rows still open
	if d.closed != 0 {
		t.Errorf("%d statements closed while the evicted one's rows were open, want 0", d.closed)
	}
	var got string
	if !open.Next() || open.Scan(&got) != nil || got != "a" {
		t.Fatalf("the evicted statement's rows gave %q, want a", got)
	}
	if err := open.Close(); err != nil {
		t.Fatal(err)
	}
	if d.closed != 1 {
		t.Errorf("%d statements closed after the evicted one's rows closed, want 1", d.closed)
	}
	selectOne(t, conn, "SELECT b", "b")
	selectOne(t, conn, "SELECT a", "a") // c leaves now: b was used since
	selectOne(t, conn, "SELECT b", "b")
	if d.prepared != 4 || d.closed != 2 {
		t.Errorf("%d prepared, %d closed; want 4 (a, b, c, a again) and 2 (a, c)", d.prepared, d.closed)
	}
}

// A statement that failed is closed and prepared afresh the next time; a
// query that does not parse caches nothing.
func TestStatementCacheDropsAStatementThatFailed(t *testing.T) {
	db, d, _ := openFake(t, 8)
	ctx := context.Background()
	for range 2 {
		if _, err := db.ExecContext(ctx, "FAIL"); err == nil || !strings.Contains(err.Error(), "constraint failed") {
			t.Fatalf("exec of FAIL: %v, want the driver's error", err)
		}
	}
	if d.prepared != 2 || d.closed != 2 {
		t.Errorf("a failing statement run twice: %d prepared, %d closed; want 2 and 2", d.prepared, d.closed)
	}
	if _, err := db.ExecContext(ctx, "SYNTAX"); err == nil || !strings.Contains(err.Error(), "syntax error") {
		t.Fatalf("exec of a statement that does not parse: %v, want the driver's error", err)
	}
	selectOne(t, db, "SELECT 2", "2")
}
