// Package service runs the merge queues: it carries out the use cases of
// the REST API and the webhook handlers by recording facts, and executes
// the engine's decisions through the ports (Store, GitHub). What the API,
// the replies and the dashboard show of the queues is answered by
// queue/readside, which the reconciler shares the estimates with.
//
// A step plans under the queue's lock and records the intent of every
// GitHub write before it; the GitHub calls happen without the lock; their
// outcome is recorded under the lock again. Every engine input is durable;
// the Service keeps only caches and schedules that are safe to lose.
//
// The Reconciler is the only writer of what GitHub shows about entries:
// sticky comments, check runs and state labels derived from the stored
// entries, one-off notices (replies, mentions, alerts, reactions, label
// removals), and the deletion of branches no live run owns. Every write
// looks before it writes, so crashes and outages never duplicate or lose
// one.
package service
