// Package record holds the records a store keeps beside the queues' model
// (package queue): webhook deliveries, REST API tokens, dashboard sessions,
// notification cursors and what retention pruned.
//
// The ports that read and write them are declared by their consumers
// (handlers/inbox, handlers/api/apitoken, app/notify, app/dashboard, app);
// the stores that implement them (queue/sqlite, queue/postgres) and those
// consumers share these types, so no package under queue/ imports a
// handler or app package. The consumers re-export them under their
// historical names (inbox.Delivery, apitoken.Token) as aliases.
//
// This package is data and pure methods on it: no I/O.
package record
