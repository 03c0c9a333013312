package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	msqlite "modernc.org/sqlite" // registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/sqlstore"
)

// Compile-time check that Store is a queue store.
var _ queue.Store = (*Store)(nil)

// Dialect is SQLite's, for the shared store (queue/sqlstore): the
// statements are written in it.
var Dialect = &sqlstore.Dialect{Name: "SQLite", IsUnique: isUniqueViolation}

// isUniqueViolation reports whether err is a UNIQUE or PRIMARY KEY
// constraint failure.
func isUniqueViolation(err error) bool {
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

const (
	// busyTimeoutMS is how long a connection waits for a lock held by another
	// connection (e.g. a checkpoint, or another process) before SQLITE_BUSY.
	busyTimeoutMS = 5000
	// readPoolSize bounds the query-only connections used for reads.
	readPoolSize = 4
	// stmtCacheSize is how many prepared statements each connection keeps
	// for reuse (sqlstore.CachingConnector): more than the store's distinct
	// statements, so that only lists of varying length (IN (?, ?, …)) and
	// one-off statements leave the cache.
	stmtCacheSize = 256
)

// writerParams are the DSN parameters of the one writer connection.
// secure_delete(fast) zeroes deleted content in the pages a write touches
// anyway (no extra I/O), so a row deleted or rewritten, such as a
// notification key that held a URL before migration 0016, leaves no copy
// in the file.
var writerParams = []string{
	fmt.Sprintf("_pragma=busy_timeout(%d)", busyTimeoutMS),
	"_pragma=journal_mode(WAL)",
	"_pragma=synchronous(NORMAL)",
	"_pragma=foreign_keys(1)",
	"_pragma=secure_delete(fast)",
	"_txlock=immediate",
}

// readerParams are the DSN parameters of the read pool; the journal mode is
// a property of the file, set by the writer.
var readerParams = []string{
	fmt.Sprintf("_pragma=busy_timeout(%d)", busyTimeoutMS),
	"_pragma=foreign_keys(1)",
	"_pragma=query_only(1)",
}

// Store is the SQLite implementation of queue.Store and of the ports
// declared by the inbox (handlers/inbox), the API tokens
// (handlers/api/apitoken), the notifier (app/notify), the dashboard and the
// app (app.Database): the shared store of queue/sqlstore on one SQLite
// file. It is safe for concurrent use.
type Store struct {
	*sqlstore.Store
	writer *sql.DB
	reader *sql.DB
	path   string
	// counter counts the statements sent to the file (Statements).
	counter *sqlstore.StatementCounter
}

// Open opens (creating if needed) the database file at path, checks its
// pragmas and applies pending migrations. path is a filesystem path;
// ":memory:" and other in-memory databases are not supported.
//
// The database holds credentials' traces (token hashes) and private
// repositories' data, so its file is created with mode 0600 and its -wal
// and -shm siblings, which SQLite creates with the database file's mode,
// follow; an existing file readable or writable by others is tightened to
// 0600, logged (zerolog.Ctx(ctx)) as a warning.
func Open(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, stmtCacheSize)
}

// open is Open with each connection keeping up to cache prepared
// statements (0: none, every statement parsed anew).
func open(ctx context.Context, path string, cache int) (*Store, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("failed to resolve database path %q: %w", path, err)
	}
	if err := secureFiles(ctx, abs); err != nil {
		return nil, err
	}

	counter := &sqlstore.StatementCounter{}
	connector := func(params []string) driver.Connector {
		return counter.CachingConnector(sqlstore.DSNConnector(sqliteDriver(), dsn(abs, params)), cache)
	}
	writer := sql.OpenDB(connector(writerParams))
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)
	if err := checkWriterPragmas(ctx, writer); err != nil {
		_ = writer.Close()
		return nil, fmt.Errorf("database %s: %w", abs, err)
	}
	if err := migrate(ctx, writer, embeddedMigrations); err != nil {
		_ = writer.Close()
		return nil, fmt.Errorf("database %s: %w", abs, err)
	}
	// Copy what the migrations wrote into the file and empty the WAL, so
	// that what they replaced (0016: URLs) is gone from both at once.
	if _, err := writer.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		_ = writer.Close()
		return nil, fmt.Errorf("database %s: failed to checkpoint after migrating: %w", abs, err)
	}

	reader := sql.OpenDB(connector(readerParams))
	reader.SetMaxOpenConns(readPoolSize)
	reader.SetMaxIdleConns(readPoolSize)
	if err := checkReaderPragmas(ctx, reader); err != nil {
		_ = reader.Close()
		_ = writer.Close()
		return nil, fmt.Errorf("database %s: %w", abs, err)
	}

	core, err := sqlstore.New(ctx, writer, reader, sqlstore.Options{Dialect: Dialect})
	if err != nil {
		_ = reader.Close()
		_ = writer.Close()
		return nil, fmt.Errorf("database %s: %w", abs, err)
	}
	s := &Store{Store: core, writer: writer, reader: reader, path: abs, counter: counter}
	return s, nil
}

// sqliteDriver is the "sqlite" driver as registered, with this package's
// functions (functions.go).
func sqliteDriver() driver.Driver {
	db, err := sql.Open("sqlite", "")
	if err != nil {
		return &msqlite.Driver{} // not reached: the driver is registered by the import
	}
	defer func() { _ = db.Close() }()
	return db.Driver()
}

// Close closes the read pool and the writer connection. The Store must not
// be used afterwards.
func (s *Store) Close() error {
	derr := s.Store.Close()
	rerr := s.reader.Close()
	werr := s.writer.Close()
	if err := errors.Join(derr, rerr, werr); err != nil {
		return fmt.Errorf("failed to close database %s: %w", s.path, err)
	}
	return nil
}

// Statements is the number of statements this Store sent to the
// database since it was opened (migrations included): every query and
// write, and every transaction's begin and end.
func (s *Store) Statements() int64 { return s.counter.Statements() }

// Prepared is the number of statements this Store had SQLite parse since
// it was opened: each connection parses a statement once and reuses it
// (stmtCacheSize).
func (s *Store) Prepared() int64 { return s.counter.Prepared() }

// Path is the absolute path of the database file.
func (s *Store) Path() string { return s.path }

func checkPath(path string) error {
	p := strings.TrimSpace(path)
	switch {
	case p == "":
		return errors.New("database path is empty")
	case p == ":memory:" || strings.HasPrefix(p, "file::memory:") || strings.Contains(p, "mode=memory"):
		return fmt.Errorf("database path %q: in-memory SQLite databases are not supported "+
			"(each connection would see its own database); use a file, e.g. t.TempDir() in tests", path)
	case strings.HasPrefix(p, "file:"):
		return fmt.Errorf("database path %q: give a filesystem path, not a SQLite URI", path)
	}
	return nil
}

// dsn builds a "file:" URI for the absolute path abs. The path is
// percent-escaped, so '?', '#' and '%' in it cannot start or alter the query.
func dsn(abs string, params []string) string {
	u := url.URL{Path: filepath.ToSlash(abs)}
	return "file:" + u.EscapedPath() + "?" + strings.Join(params, "&")
}
