// Package handlers takes GitHub webhooks in durably and turns them into facts
// and commands for the merge queue.
//
// The path of a delivery:
//
//  1. Receiver (the http.Handler for POST /api/github/hook) bounds the body
//     at 25 MiB, requires X-GitHub-Event, X-GitHub-Delivery and a valid
//     X-Hub-Signature-256 (HMAC-SHA256; there is no SHA-1 fallback), stores
//     the delivery in the durable inbox (deduplicated by delivery id) and
//     answers 200 only after the store committed. A delivery that is not
//     stored is never acknowledged, so GitHub can be asked to redeliver it.
//  2. Processor drains the inbox serially, oldest first, dispatching each
//     delivery by event type to the githubapp.EventHandler that handles it.
//     A failed delivery is retried with backoff up to a bounded number of
//     attempts and then marked done with its error recorded.
//  3. One thin handler per event parses the payload, filters by action,
//     enriches the context logger and calls the queue service. Handlers are
//     safe to run twice for the same event: webhooks are hints, the queue is
//     level-triggered and re-reads GitHub where decisions depend on it.
//
// Commands in PR comments (/mq merge, cancel, restart, status, help) are
// parsed by the pure function ParseCommand and authorised by one function
// (authorize) through GitHub's permission API at command time.
package handlers
