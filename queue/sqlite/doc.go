// Package sqlite is the durable store (queue.Store and the other ports of
// app.Database, implemented once in queue/sqlstore) on SQLite, through the
// pure-Go driver modernc.org/sqlite (CGO_ENABLED=0 builds). This package
// opens the file, checks its pragmas and migrates its schema.
//
// Guarantees:
//
//   - The database runs in WAL mode with synchronous=NORMAL, a busy timeout
//     and BEGIN IMMEDIATE transactions; Open reads the pragmas back and refuses
//     a database that did not take them. A committed write survives a crash of
//     the process (kill -9); only an OS crash or power loss can lose the last
//     commits.
//   - All writes, and every WithTx transaction, go through one connection, so
//     writers in this process never fail with SQLITE_BUSY: they wait their
//     turn. Reads outside a transaction use a small pool of query-only
//     connections and never wait for a writer.
//   - Every Store method is one SQL statement and therefore atomic. WithTx
//     runs several in one transaction; fn's store reads its own writes, and
//     nothing fn wrote is kept if it returns an error or panics.
//   - The schema is versioned by embedded migrations (migrations/NNNN_*.sql),
//     applied in order, each in its own transaction, and recorded in
//     schema_migrations. Open refuses a database whose schema is newer than
//     this binary.
//   - Times are stored as unix nanoseconds and returned in UTC; the zero time
//     stays zero. Lists keep nil distinct from empty.
//
// A function passed to WithTx must use the store it receives, never the outer
// Store, for writes: the outer Store waits for the one writer connection that
// the transaction holds.
//
// The database file must live on a local filesystem (WAL does not work over a
// network filesystem). In-memory databases are not supported.
package sqlite
