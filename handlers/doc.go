// Package handlers turns GitHub webhook deliveries into facts and commands
// for the merge queue.
//
// Deliveries reach the handlers through the durable inbox (package
// handlers/inbox): its Receiver verifies and stores them before the 200, and
// its Processor dispatches each, by event type, to the handler New returns
// for it. One thin handler per event parses the payload, filters by action,
// enriches the context logger and calls the queue's use cases (Service), or
// its read side (Reads) for what it looks up and shows. Handlers are safe
// to run twice for the same event: webhooks are hints, the queue is
// level-triggered and re-reads GitHub where decisions depend on it. A
// malformed payload is a Permanent error: the inbox does not retry it.
//
// Commands in PR comments (/mq merge, cancel, restart, status, help) are
// parsed by the pure function ParseCommand and authorised by one function
// (authorize) through GitHub's permission API at command time. What a
// command acts on — the PR and the queue of its base branch — the service
// reads once (Service.CommandTarget); its typed refusals (*queue.Refusal)
// become replies, or silence, here.
package handlers
