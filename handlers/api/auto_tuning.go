package api

import (
	"context"

	"github.com/mergequeue/mq/queue"
)

// QueueTunings is what Reads may also offer for getQueue: autoTune's
// tuning in force of a queue (nil: none, or autoTune off).
type QueueTunings interface {
	QueueTuning(ctx context.Context, q *queue.Queue) (*queue.QueueTuning, error)
}

// tunedJSON are the settings autoTune chooses, as getQueue shows them at
// the top level (batchingMaxSize, bisectionConcurrency and bisectionParts
// resolved as there).
type tunedJSON struct {
	Concurrency            int  `json:"concurrency"`
	Batch                  bool `json:"batch"`
	BatchingMinSize        int  `json:"batchingMinSize"`
	BatchingMaxSize        int  `json:"batchingMaxSize"`
	BisectionConcurrency   int  `json:"bisectionConcurrency"`
	BisectionParts         int  `json:"bisectionParts"`
	PendingFailureDepth    int  `json:"pendingFailureDepth"`
	CanOptimisticallyMerge bool `json:"canOptimisticallyMerge"`
	IsolationRuns          bool `json:"isolationRuns"`
}

func newTunedJSON(s queue.Settings) tunedJSON {
	return tunedJSON{Concurrency: s.Concurrency, Batch: s.Batch, BatchingMinSize: s.BatchingMinSize,
		BatchingMaxSize: s.EffectiveBatchingMaxSize(), BisectionConcurrency: s.EffectiveBisectionConcurrency(),
		BisectionParts: s.EffectiveBisectionParts(), PendingFailureDepth: s.PendingFailureDepth,
		CanOptimisticallyMerge: s.CanOptimisticallyMerge, IsolationRuns: s.IsolationRuns}
}

// tuningChangeJSON is autoTune's last change: why, when, and the values
// before it.
type tuningChangeJSON struct {
	Reason string    `json:"reason"`
	At     string    `json:"at"`
	From   tunedJSON `json:"from"`
}

// autoTuningJSON is getQueue's autoTuning (our extension): whether
// autoTune is on, its bounds, the effective values of the settings it
// tunes (what the queue runs on; the top-level fields are the configured
// ones), and its last change (null before the first, or while off).
type autoTuningJSON struct {
	Enabled                 bool              `json:"enabled"`
	MaxRuns                 int               `json:"maxRuns"`
	MaxRunsPerHundredMerges int               `json:"maxRunsPerHundredMerges"`
	Effective               tunedJSON         `json:"effective"`
	LastChange              *tuningChangeJSON `json:"lastChange"`
}

func newAutoTuningJSON(q *queue.Queue, t *queue.QueueTuning) autoTuningJSON {
	out := autoTuningJSON{Enabled: q.Settings.AutoTune, MaxRuns: q.Settings.AutoTuneMaxRuns,
		MaxRunsPerHundredMerges: q.Settings.AutoTuneMaxRunsPerHundredMerges,
		Effective:               newTunedJSON(queue.EffectiveSettings(q.Settings, t))}
	if q.Settings.AutoTune && t != nil {
		out.LastChange = &tuningChangeJSON{Reason: t.Reason, At: timestamp(t.At), From: newTunedJSON(t.From.Apply(q.Settings))}
	}
	return out
}
