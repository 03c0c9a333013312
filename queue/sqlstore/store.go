package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/changes"
)

// Compile-time check that Store and its transactions are queue stores.
var (
	_ queue.Store = (*Store)(nil)
	_ queue.Store = (*txStore)(nil)
)

// Options adjust a Store.
type Options struct {
	// Dialect is the database's (required).
	Dialect *Dialect
	// Now is the clock of the token cache (default time.Now).
	Now func() time.Time
}

// Store is queue.Store and every other port of the process's database
// (the inbox's, the API tokens', the notifier's, the dashboard sessions',
// the App state's and retention's) on a database/sql database. It is safe
// for concurrent use.
//
// Every write outside a transaction, and every WithTx transaction, goes
// through the writer; reads outside a transaction go through the reader.
// The caller decides what they are: queue/sqlite gives one connection for
// the writer (so writers wait their turn, never failing with SQLITE_BUSY)
// and a read-only pool for the reader; queue/postgres likewise.
type Store struct {
	ops
	// versions counts the committed writes of each queue (QueueVersion).
	versions changes.Versions
	// tokens caches TokenByHash.
	tokens *tokenCache
	// deliveries commits concurrent PutDelivery calls together.
	deliveries *deliveryBatcher
	dialect    *Dialect
	writer     *sql.DB
	// claims are the inbox's and the outbox's claims when the dialect
	// keeps none in the database.
	claims memClaims
}

// New is a Store on writer and reader, which stay the caller's to close
// (after Close). The schema must be migrated already.
func New(ctx context.Context, writer, reader *sql.DB, opts Options) (*Store, error) {
	if opts.Dialect == nil {
		return nil, fmt.Errorf("failed to create the store: no SQL dialect")
	}
	tokens := newTokenCache()
	if opts.Now != nil {
		tokens.now = opts.Now
	}
	deliveries, err := newDeliveryBatcher(ctx, writer, opts.Dialect)
	if err != nil {
		return nil, err
	}
	s := &Store{tokens: tokens, deliveries: deliveries, dialect: opts.Dialect, writer: writer,
		claims: memClaims{deliveries: map[string]time.Time{}, cursors: map[string]cursorClaim{}, roles: map[string]cursorClaim{}}}
	s.ops = ops{rd: inDialect(reader, opts.Dialect), wr: fencedWriter{execer: inDialect(writer, opts.Dialect), s: s}, chg: storeChanges{s}, d: opts.Dialect}
	return s, nil
}

// Close releases what the Store prepared; the databases are the caller's.
func (s *Store) Close() error {
	if s.deliveries == nil {
		return nil
	}
	return s.deliveries.close()
}
