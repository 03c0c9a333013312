package queue

import (
	"strings"
	"time"
)

// AlertKind names a queue alert: a condition of the queue itself, not of
// one PR, that an operator must hear of.
type AlertKind string

const (
	// AlertStalled is a running queue with admitted PRs in which nothing
	// happened for its stallAlertMinutes.
	AlertStalled AlertKind = "stalled"
	// AlertChecksNotStarting says the required checks of a test run never
	// started, twice in a row; the queue paused its new runs (a CI outage).
	AlertChecksNotStarting AlertKind = "checks_not_starting"
)

// Reasons of queue alert events: each alert is raised once and cleared
// once, as an event of the queue's log with no entry (QueueAlertEvent).
const (
	ReasonQueueStalled           Reason = "queue_stalled"
	ReasonQueueStallCleared      Reason = "queue_stall_cleared"
	ReasonChecksNotStarting      Reason = "queue_checks_not_starting"
	ReasonChecksNotStartingEnded Reason = "queue_checks_not_starting_cleared"
)

var alertReasons = map[Reason]struct {
	kind   AlertKind
	raised bool
}{
	ReasonQueueStalled:           {AlertStalled, true},
	ReasonQueueStallCleared:      {AlertStalled, false},
	ReasonChecksNotStarting:      {AlertChecksNotStarting, true},
	ReasonChecksNotStartingEnded: {AlertChecksNotStarting, false},
}

// QueueAlertEvent is the event that raises (raised) or clears alert kind
// of queue queueID at at; detail says what is wrong (or that it is over).
// It has no entry, no PR and no states.
func QueueAlertEvent(queueID int64, kind AlertKind, raised bool, detail string, at time.Time) Event {
	for r, a := range alertReasons {
		if a.kind == kind && a.raised == raised {
			return Event{QueueID: queueID, At: at, Reason: r, Detail: detail}
		}
	}
	panic("unknown alert kind " + string(kind))
}

// Alert tells a queue alert event apart from an entry's: its kind and
// whether it raises or clears the alert; ok is false for any other event.
func (ev Event) Alert() (kind AlertKind, raised, ok bool) {
	if ev.EntryID != "" {
		return "", false, false
	}
	a, ok := alertReasons[ev.Reason]
	return a.kind, a.raised, ok
}

// ChecksNotStartingPause starts the PausedReason of a queue paused because
// its required checks never started (AlertChecksNotStarting).
const ChecksNotStartingPause = "CI is not starting: "

// PausedForChecksNotStarting reports whether q is paused because its
// required checks never started.
func (q *Queue) PausedForChecksNotStarting() bool {
	return q.State == QueuePaused && strings.HasPrefix(q.PausedReason, ChecksNotStartingPause)
}
