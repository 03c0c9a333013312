// Package storetest is a conformance suite for queue.Store implementations:
// Run checks the behaviour every implementation must share (errors,
// orderings, nil versus empty lists, UTC times, transactions, deep copies).
// It runs against the SQLite store (in this package's tests) and against
// queue/memstore, which proves the two interchangeable.
package storetest
