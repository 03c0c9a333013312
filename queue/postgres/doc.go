// Package postgres is the durable store (queue.Store and the other ports
// of app.Database, implemented once in queue/sqlstore) on PostgreSQL,
// through github.com/jackc/pgx/v5 (its database/sql driver).
//
// Guarantees:
//
//   - The schema is versioned by embedded migrations (migrations/*.sql,
//     applied in order by github.com/pressly/goose/v3 and recorded in
//     goose_db_version), in the schema the URL's search_path names (the
//     user's default schema otherwise), by one process at a time. Open
//     refuses a database whose schema is newer than this binary.
//   - Every write, and every WithTx transaction, of a process goes through
//     one connection, which holds a session advisory lock on the schema:
//     one server process writes to a schema at a time, a second one is
//     refused with ErrLocked (Open checks it at once). NoWriterLock opens
//     without it: for replicas sharing the schema (database.replicas) and
//     for bot token. If the connection is lost, the next write reconnects
//     (and takes the lock again). Reads outside a transaction use a small
//     pool of read-only connections. Migrations run under a lock of their
//     own: two processes never migrate at once.
//   - Per-queue leases (AcquireLease, RenewLease, RenewLeases, ReleaseLease) say which
//     replica decides for a queue; their fencing token grows each time a
//     lease changes hands, and Fenced runs a transaction only while its
//     token is still the queue's, holding the lease against a takeover
//     until it commits. Every write made under a context carrying a
//     queue.Fence is fenced the same way (the Dialect's FenceGuard). The
//     app's workers hold them (issue #18 item 3).
//   - The inbox and the notification cursors are shared: a delivery or a
//     target is claimed by one process at a time (held_until columns,
//     claimed FOR UPDATE SKIP LOCKED).
//   - A committed write is durable as the server's settings make it
//     (synchronous_commit).
//   - The statements and the column types are those of the SQLite store
//     (see queue/sqlstore): times as unix nanoseconds, returned in UTC.
//     GitHub names compare case-insensitively through the collation
//     "nocase" the first migration creates (ICU, which Debian's and the
//     official builds have).
package postgres
