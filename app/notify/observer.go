package notify

// Outcomes of one delivery attempt, as reported to an Observer.
const (
	// OutcomeDelivered: the target accepted the event (or had nothing to
	// receive from it).
	OutcomeDelivered = "delivered"
	// OutcomeFailed: the attempt failed; the event is retried after a
	// backoff.
	OutcomeFailed = "failed"
	// OutcomeSkipped: the target refused the event for good; it is skipped.
	OutcomeSkipped = "skipped"
)

// Observer is told about every delivery attempt of an event. target is the
// target's index in Options.Targets: its URL may hold a credential, so it is
// never reported. It runs on the target's goroutine: it must be quick and
// safe for concurrent use.
type Observer interface {
	NotificationAttempted(target int, kind Kind, outcome string)
}

// observe reports an attempt to t, if an observer is set.
func (n *Notifier) observe(t Target, outcome string) {
	if n.opts.Observer == nil {
		return
	}
	n.opts.Observer.NotificationAttempted(n.index(t), t.Kind, outcome)
}

// index is t's position in Options.Targets (-1 if absent).
func (n *Notifier) index(t Target) int {
	for i, o := range n.opts.Targets {
		if o.key() == t.key() {
			return i
		}
	}
	return -1
}

// TargetCursor is a target's position as the metrics see it.
type TargetCursor struct {
	Index int
	Kind  Kind
	// Key is the target's cursor key (Store.Cursor, TargetKey): a hash of
	// the URL, for looking the cursor up; the index names the target.
	Key string
}

// TargetCursors lists the configured targets with their cursor keys.
func (n *Notifier) TargetCursors() []TargetCursor {
	out := make([]TargetCursor, 0, len(n.opts.Targets))
	for i, t := range n.opts.Targets {
		out = append(out, TargetCursor{Index: i, Kind: t.Kind, Key: t.key()})
	}
	return out
}
