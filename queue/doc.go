// Package queue is the merge queue's domain model: queues, entries (one
// pull request in one queue), test runs, checks, events, the surfaces the
// queue shows on GitHub, and the ports the rest of the system implements
// (Store for durable state, GitHub for the outside world). Its
// sub-packages hold the behaviour: engine (the pure decision function) and
// service (which runs it against the ports).
//
// This package imports no transport, no SQL and no go-github.
package queue
