// Package queue is the merge queue domain: queues, entries (one pull request in
// one queue), test runs, the engine that decides what to do next, and the
// ports it needs (Store for durable state, GitHub for the outside world).
//
// The engine (Plan) is a pure function of a Snapshot and the current time. The
// Service executes its decisions through the ports, one step at a time under
// a per-queue lock, re-planning from fresh state after every side effect, so
// that duplicate, late or lost events cannot corrupt a queue.
//
// This package imports no transport, no SQL and no go-github.
package queue
