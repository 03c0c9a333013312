package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/sqlstore"
)

// Compile-time check that Store is a queue store.
var _ queue.Store = (*Store)(nil)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// readPoolSize bounds the read-only connections used for reads.
const readPoolSize = 4

// connectTimeout bounds a connection attempt when the URL sets none.
const connectTimeout = 10 * time.Second

// idleInTransaction is the server's idle_in_transaction_session_timeout for
// the store's sessions unless the URL sets one: a transaction whose client
// stopped (a process frozen, a partitioned host) is ended and its locks
// freed after this long. Every transaction of the store runs statements
// only (no GitHub call inside), so a live one is never idle this long; a
// former lease holder's fenced transaction, which holds the lease row
// against a takeover, thus holds it off for at most this long, not until
// the process resumes.
const idleInTransaction = 5 * time.Second

// Dialect is PostgreSQL's, for the shared store (queue/sqlstore).
var Dialect = &sqlstore.Dialect{Name: "PostgreSQL", Rebind: Rebind, Args: sqlstore.BoolsAsIntegers, IsUnique: isUniqueViolation,
	SharedClaims: true, FenceGuard: fenceGuard}

// isUniqueViolation reports whether err is a unique_violation (23505),
// which a primary key's violation is too.
func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// ErrLocked is returned when another process holds the schema's writer
// lock.
var ErrLocked = errors.New("another process writes to this PostgreSQL schema (one mq process per schema unless database.replicas is set)")

// Store is the PostgreSQL implementation of queue.Store and of the ports
// declared by the inbox, the API tokens, the notifier, the dashboard and
// the app (app.Database): the shared store of queue/sqlstore on one
// PostgreSQL schema. It is safe for concurrent use.
type Store struct {
	*sqlstore.Store
	writer *sql.DB
	reader *sql.DB
	where  string
	cfg    *pgx.ConnConfig // for the wake-up listener's connection
	wakes  string          // the schema's wake-up channel
	// unknownVersion numbers the QueueVersion calls that failed.
	unknownVersion atomic.Uint64
	// versions serves QueueVersion from memory, kept current by the
	// notifications on versionsChannel, which a goroutine listens to from
	// the first QueueVersion until Close (listenCtx, listenDone).
	versions        versionCache
	versionsChannel string
	listenCtx       context.Context
	stopListening   context.CancelFunc
	listenDone      chan struct{}
	// counter counts the statements sent on the pools (Statements).
	counter *sqlstore.StatementCounter
}

// Statements is the number of statements this Store sent on its writer
// and read pools since it was opened (migrations included): every query
// and write, and every transaction's begin and end. The wake-up and
// version listeners' LISTEN connections are not counted (they wait; the
// NOTIFYs they receive are sent by the writers).
func (s *Store) Statements() int64 { return s.counter.Statements() }

// Option adjusts Open.
type Option func(*options)

type options struct{ noLock bool }

// NoWriterLock opens the store without the schema's writer lock: for
// replicas sharing the schema (database.replicas, which divide the queues
// by per-queue leases), and for a short-lived command that writes single
// rows beside a running server (bot token).
func NoWriterLock() Option { return func(o *options) { o.noLock = true } }

// Open connects to the PostgreSQL database at rawURL (a postgres:// URL or
// key=value connection string, as libpq takes them), takes the schema's
// writer lock (unless NoWriterLock) and applies pending migrations.
func Open(ctx context.Context, rawURL string, opts ...Option) (*Store, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("failed to parse the PostgreSQL URL: %w", redactErr(err, rawURL))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	if _, set := cfg.RuntimeParams["idle_in_transaction_session_timeout"]; !set {
		cfg.RuntimeParams["idle_in_transaction_session_timeout"] = strconv.FormatInt(idleInTransaction.Milliseconds(), 10)
	}
	where := Redact(rawURL)
	var writerOpts []stdlib.OptionOpenDB
	if !o.noLock {
		writerOpts = append(writerOpts, stdlib.OptionAfterConnect(lockSchema))
	}
	counter := &sqlstore.StatementCounter{}
	writer := sql.OpenDB(counter.Connector(stdlib.GetConnector(*cfg, writerOpts...)))
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)
	if err := writer.PingContext(ctx); err != nil {
		_ = writer.Close()
		return nil, fmt.Errorf("failed to connect to %s: %w", where, err)
	}
	if err := migrate(ctx, writer); err != nil {
		_ = writer.Close()
		return nil, fmt.Errorf("database %s: %w", where, err)
	}
	var schema string
	if err := writer.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		_ = writer.Close()
		return nil, fmt.Errorf("database %s: failed to read the schema: %w", where, err)
	}
	rcfg := cfg.Copy()
	rcfg.RuntimeParams["default_transaction_read_only"] = "on"
	reader := sql.OpenDB(counter.Connector(stdlib.GetConnector(*rcfg)))
	reader.SetMaxOpenConns(readPoolSize)
	reader.SetMaxIdleConns(readPoolSize)
	core, err := sqlstore.New(ctx, writer, reader, sqlstore.Options{Dialect: Dialect})
	if err != nil {
		_ = reader.Close()
		_ = writer.Close()
		return nil, fmt.Errorf("database %s: %w", where, err)
	}
	lctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	return &Store{Store: core, writer: writer, reader: reader, where: where, cfg: cfg, wakes: wakeChannel(schema),
		versionsChannel: versionChannel(schema), listenCtx: lctx, stopListening: stop, listenDone: make(chan struct{}), counter: counter}, nil
}

// lockSchema takes, on a new writer connection, the session advisory lock
// of the connection's schema, or fails with ErrLocked.
func lockSchema(ctx context.Context, conn *pgx.Conn) error {
	var ok bool
	var schema string
	err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtextextended('mergequeue writer ' || current_schema(), 0)), current_schema()`).
		Scan(&ok, &schema)
	if err != nil {
		return fmt.Errorf("failed to take the schema's writer lock: %w", err)
	}
	if !ok {
		return fmt.Errorf("schema %q: %w", schema, ErrLocked)
	}
	return nil
}

// migrate applies the embedded migrations not yet applied, on the writer
// connection, holding the schema's migration lock: two processes never
// migrate at once.
func migrate(ctx context.Context, db *sql.DB) (err error) {
	const key = `hashtextextended('mergequeue migrations ' || current_schema(), 0)`
	if _, err := db.ExecContext(ctx, `SELECT pg_advisory_lock(`+key+`)`); err != nil {
		return fmt.Errorf("failed to take the schema's migration lock: %w", err)
	}
	defer func() {
		if _, uerr := db.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+key+`)`); uerr != nil {
			err = errors.Join(err, fmt.Errorf("failed to release the schema's migration lock: %w", uerr))
		}
	}()
	files, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return fmt.Errorf("failed to read the embedded migrations: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, files, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return fmt.Errorf("failed to load the migrations: %w", err)
	}
	sources := p.ListSources()
	latest := sources[len(sources)-1].Version
	current, err := p.GetDBVersion(ctx)
	if err != nil && !errors.Is(err, goose.ErrNoCurrentVersion) {
		return fmt.Errorf("failed to read the schema version: %w", err)
	}
	if current > latest {
		return fmt.Errorf("the schema is at version %d, newer than this binary knows (%d): run a newer mq", current, latest)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("failed to migrate: %w", err)
	}
	return nil
}

// Close closes the read pool and the writer connection (releasing the
// schema's lock). The Store must not be used afterwards.
func (s *Store) Close() error {
	s.stopListening()
	s.versions.start.Do(func() { close(s.listenDone) }) // never started
	<-s.listenDone
	cerr := s.Store.Close()
	// The server ends a closed session in its own time; unlock first, so
	// that the next process to open the schema finds it free. (A store
	// without the lock unlocks nothing.)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_, uerr := s.writer.ExecContext(ctx, `SELECT pg_advisory_unlock_all()`)
	cancel()
	if errors.Is(uerr, ErrLocked) {
		// The writer's connection was dropped (a statement cut off by its
		// context, as a shutdown cuts the passes off), so the unlock asked
		// for a new one, which found the lock still held by the dropped
		// session as it ends: the lock goes with that session.
		uerr = nil
	}
	if uerr != nil {
		uerr = fmt.Errorf("failed to release the schema's writer lock: %w", uerr)
	}
	rerr := s.reader.Close()
	werr := s.writer.Close()
	if err := errors.Join(cerr, uerr, rerr, werr); err != nil {
		return fmt.Errorf("failed to close database %s: %w", s.where, err)
	}
	return nil
}

// Redact is rawURL without its password, for logs and errors.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return "(a PostgreSQL connection string)"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// redactErr is err with rawURL's password removed from its text.
func redactErr(err error, rawURL string) error {
	u, perr := url.Parse(rawURL)
	if perr != nil {
		return errors.New("invalid connection string")
	}
	if pw, has := u.User.Password(); has && pw != "" {
		return errors.New(strings.ReplaceAll(err.Error(), pw, "xxxxx"))
	}
	return err
}
