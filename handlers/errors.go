package handlers

import "github.com/mergequeue/mq/handlers/inbox"

// Permanent marks err as not worth retrying (inbox.Permanent): a handler
// returning it ends the delivery after one attempt, with the error recorded.
func Permanent(err error) error { return inbox.Permanent(err) }

// IsPermanent reports whether err (or an error it wraps) was marked
// Permanent.
func IsPermanent(err error) bool { return inbox.IsPermanent(err) }
