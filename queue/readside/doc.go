// Package readside is the read side of the merge queue: what the REST API,
// the webhook replies and the dashboard show of the queues, computed from
// the store. It imports the domain model (package queue) only: no engine,
// no use case, no transport; its port on the store is declared here.
//
// Estimates (positions and expected merge times, docs/eta.md) are computed
// here once, by Estimates, for everything that shows them, the reconciler
// of GitHub's surfaces included (LoadEstimates).
package readside
