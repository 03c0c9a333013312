package queue

import "time"

// TunedValues are the settings autoTune chooses (Settings.AutoTune): the
// speculative chain's concurrency, batching, bisection, flake absorption
// and isolation runs. Every other setting is the configured one.
type TunedValues struct {
	Concurrency            int  `json:"concurrency"`
	Batch                  bool `json:"batch"`
	BatchingMinSize        int  `json:"batching_min_size"`
	BatchingMaxSize        int  `json:"batching_max_size"`
	BisectionConcurrency   int  `json:"bisection_concurrency"`
	BisectionParts         int  `json:"bisection_parts"`
	PendingFailureDepth    int  `json:"pending_failure_depth"`
	CanOptimisticallyMerge bool `json:"can_optimistically_merge"`
	IsolationRuns          bool `json:"isolation_runs"`
}

// TunedValuesOf reads the tuned values of s.
func TunedValuesOf(s Settings) TunedValues {
	return TunedValues{Concurrency: s.Concurrency, Batch: s.Batch, BatchingMinSize: s.BatchingMinSize,
		BatchingMaxSize: s.BatchingMaxSize, BisectionConcurrency: s.BisectionConcurrency, BisectionParts: s.BisectionParts,
		PendingFailureDepth: s.PendingFailureDepth, CanOptimisticallyMerge: s.CanOptimisticallyMerge, IsolationRuns: s.IsolationRuns}
}

// Apply returns s with v's values.
func (v TunedValues) Apply(s Settings) Settings {
	s.Concurrency, s.Batch, s.BatchingMinSize, s.BatchingMaxSize = v.Concurrency, v.Batch, v.BatchingMinSize, v.BatchingMaxSize
	s.BisectionConcurrency, s.BisectionParts, s.PendingFailureDepth = v.BisectionConcurrency, v.BisectionParts, v.PendingFailureDepth
	s.CanOptimisticallyMerge, s.IsolationRuns = v.CanOptimisticallyMerge, v.IsolationRuns
	return s
}

// QueueTuning is the tuning autoTune put in force for a queue, stored
// apart from the configured settings (Queue.Settings), which it never
// changes: the effective settings are the configured ones with Values
// (EffectiveSettings) while AutoTune is on, the configured ones otherwise.
type QueueTuning struct {
	QueueID int64
	// Values are the tuned settings in force; From those before the last
	// change.
	Values, From TunedValues
	// Reason says why the last change was made ("flake rate rose to 9 %:
	// batches off, depth 2"); At is when.
	Reason string
	At     time.Time
}

// EffectiveSettings are the settings the queue runs on: the configured
// ones, with the tuned values of t while autoTune is on (t nil: none
// chosen yet).
func EffectiveSettings(configured Settings, t *QueueTuning) Settings {
	if !configured.AutoTune || t == nil {
		return configured
	}
	return t.Values.Apply(configured)
}

// Reasons of autoTune's events: each is an event of the queue's log with
// no entry (QueueTuningEvent).
const (
	// ReasonQueueAutoTuned is a change of the tuned settings; its detail
	// is the change's reason and the new tuning.
	ReasonQueueAutoTuned Reason = "queue_autotuned"
	// ReasonQueueAutoTuneAbandoned is a choice that took longer than its
	// time budget: it was abandoned and the tuning in force kept.
	ReasonQueueAutoTuneAbandoned Reason = "queue_autotune_abandoned"
)

// QueueTuningEvent is the event of autoTune's reason r for queue queueID
// at at; detail says what changed and why. It has no entry, no PR and no
// states.
func QueueTuningEvent(queueID int64, r Reason, detail string, at time.Time) Event {
	return Event{QueueID: queueID, At: at, Reason: r, Detail: detail}
}

// Tuning tells an autoTune event apart from others: ok is false for any
// other event.
func (ev Event) Tuning() (r Reason, ok bool) {
	if ev.EntryID != "" || (ev.Reason != ReasonQueueAutoTuned && ev.Reason != ReasonQueueAutoTuneAbandoned) {
		return "", false
	}
	return ev.Reason, true
}
