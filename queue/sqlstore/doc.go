// Package sqlstore is the durable store on database/sql, shared by the
// SQLite store (queue/sqlite) and the PostgreSQL store (queue/postgres):
// queue.Store and every other port of the process's database (the inbox,
// the API tokens, the notification outbox's cursors, the dashboard's
// sessions, the App's state and retention; see app.Database).
//
// Guarantees, on either database:
//
//   - Every Store method is one SQL statement and therefore atomic. WithTx
//     runs several in one transaction; fn's store reads its own writes, and
//     nothing fn wrote is kept if it returns an error or panics.
//   - Writes go through the writer the caller gives (one connection for
//     both databases today), reads outside a transaction through the
//     reader.
//   - Times are stored as unix nanoseconds and returned in UTC; the zero
//     time stays zero. Lists keep nil distinct from empty.
//   - QueueVersion counts the committed writes of this process to each
//     queue's reads (the read model of queue/readside keys on it).
//
// The statements are written once, in the SQL both databases accept; what
// differs is a Dialect (placeholders, argument conversion, how a unique
// violation looks) and each store's migrations, which give both the same
// column types.
package sqlstore
