// Package notify sends queue activity to configured endpoints (SPEC §8).
//
// The queue's event log, written in the same transaction as every entry
// state change, is the durable outbox: a Notifier tails it with one cursor
// per target, stored in the database, so nothing recorded is lost across
// restarts and each target receives events in order. A delivery that fails
// (network error, 5xx, 408, 429) is retried with exponential backoff, and
// the target's later events wait behind it; a permanent refusal (another
// 4xx) is logged and skipped.
//
// Webhook targets receive JSON events (type pull_request or
// pull_request_batch, snake_case fields) signed with the Standard Webhooks
// scheme (webhook-id, webhook-timestamp, webhook-signature); Slack targets
// receive a one-line summary as an incoming-webhook message.
//
// The package declares what it needs of the database (Store, with its own
// Cursor type) and imports no storage: the application adapts the SQLite
// store to it (app/notify_store.go).
package notify
