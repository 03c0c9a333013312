// Package engine is the merge queue's decision function: Next takes a
// Snapshot of one queue (its entries, runs, checks, merges, impacted
// targets, required checks and target head, all durable facts) and the
// current time, and returns the next Action and when to look again. It
// decides from the current facts, not from the last event, so duplicate,
// late or lost events cannot corrupt a queue (level-triggered, like a
// controller). Each strategy (chain and units, batching and bisection,
// parallel dependencies, failure handling and optimistic merging,
// priorities and pre-emption, conflicts, direct merges, timeouts) has its
// own file and table tests.
//
// The package is pure: it imports the domain model and the standard
// library's computing packages only, never I/O (app's TestEngineIsPure
// holds it to that), and the same engine runs in production, in the
// end-to-end tests and in the simulator.
package engine
