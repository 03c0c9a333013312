// Package changes counts a store's committed writes per queue (Versions),
// so that readers can keep what they read while nothing changed: the
// stores (queue/sqlite, queue/memstore) count, and queue/readside keeps
// its read model by the counts (readside.QueueVersions). It is apart from
// package queue, which holds only pure computation.
package changes
