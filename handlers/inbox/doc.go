// Package inbox takes GitHub webhooks in durably and drains them, in order,
// into the handlers that turn them into facts and commands.
//
// The path of a delivery:
//
//  1. Receiver (the http.Handler for POST /api/github/hook) bounds the body
//     at 25 MiB (a larger Content-Length is refused unread), holds the
//     bodies in flight in a pool of 128 MiB in all (503 with Retry-After
//     past it) and each for at most 30 s, requires X-GitHub-Event,
//     X-GitHub-Delivery and a valid X-Hub-Signature-256 (HMAC-SHA256,
//     computed as the body arrives; there is no SHA-1 fallback), stores
//     the delivery in the Store (deduplicated by delivery id) and answers
//     200 only after the store committed. A delivery that is not stored is
//     never acknowledged, so GitHub can be asked to redeliver it. Every
//     refusal is logged once at warn with its reason, the delivery id, the
//     event type and the remote address; nothing secret is logged.
//  2. Processor drains the Store serially, oldest first, dispatching each
//     delivery by event type to the githubapp.EventHandler that handles it
//     (package handlers holds one per event). A failed delivery is retried
//     with backoff up to a bounded number of attempts and then marked done
//     with its error recorded; a Permanent error ends it at once.
//
// The Store is implemented by queue/sqlite; this package imports no storage
// and nothing of the application.
package inbox
