// Package memstore is an in-memory queue.Store with the semantics of the
// SQLite store (queue/sqlite), for tests and the simulator.
//
// Guarantees:
//
//   - Every value is deep-copied on the way in and on the way out (slices,
//     the *bool of PRFacts.Mergeable): a caller never aliases stored state,
//     so a missing Save is as visible as it would be with a real database.
//   - Errors match the SQLite store's: lookups that match nothing wrap
//     queue.ErrNotFound, unique-key clashes wrap queue.ErrExists, writes that
//     reference an unknown queue fail (as a foreign key would), and times
//     outside the unix-nanosecond range (years 1678–2262) are refused.
//   - Orderings match: ListActiveEntries by (PriorityValue, Seq, SubmittedAt,
//     PRNumber); ListOpenRuns and FindRunsBySHA by (CreatedAt, ID);
//     FindActiveEntries by queue ID; ListEntries newest first by ActivityAt
//     then ID; ListChecks by (Kind, Name); ListMerges the last N oldest first;
//     ListEvents by (At, ID).
//   - Times are returned in UTC without a monotonic reading; the zero time
//     stays zero and, as in SQL where it is NULL, matches no time range: a
//     zero `since` in ListEvents matches nothing, an entry whose ActivityAt
//     is zero is excluded by any Since/Until/After bound and listed last.
//     Lists keep nil distinct from empty, except Targets.List (nil is stored
//     as empty).
//   - WithTx holds the store's one mutex for the whole transaction: it is
//     serializable and all-or-nothing (an error or a panic in fn undoes every
//     write fn made). WithTx on the transaction's store runs in the same
//     transaction. Unlike SQLite, readers on the outer Store wait for the
//     transaction instead of reading the last committed state, so fn must
//     use only the store it is given (calling the outer Store from fn
//     deadlocks).
//   - DeleteQueue removes the queue's entries, runs, merges, targets and
//     events (not check results, which belong to the repository).
//
// Lookups by ID and by (queue, PR) are map reads; per-queue indexes keep
// listing cost proportional to the queue's own entries and runs.
package memstore
