// Package ghfacts is the one translation of GitHub's objects into the
// queue's facts: a pull request into queue.PullRequest, a commit status or
// a check run into queue.CheckResult (which states and conclusions pass,
// which CI URLs are kept), an Actions run into queue.WorkflowRun. Webhook
// handlers and REST reads both go through it, so what the queue learns of
// an object does not depend on how the object reached it.
//
// The mappings take go-github's types, which REST answers decode into.
// Webhook payloads are decoded into this package's Webhook* types instead:
// leniently (an odd value in a member nothing reads cannot make an event
// drop) and only the members the mappings read, which their Facts methods
// hand to the same mappings.
//
// The package is pure: it makes no request and imports no client, so both
// handlers and githubx may import it.
package ghfacts
