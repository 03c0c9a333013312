package dashboard

import (
	"context"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/autotune"
)

// QueueTunings is what QueueReads may also offer: autoTune's tuning in
// force of a queue (nil: none, or autoTune off). *readside.Reads does.
type QueueTunings interface {
	QueueTuning(ctx context.Context, q *queue.Queue) (*queue.QueueTuning, error)
}

// autoTuneView is what a queue with autoTune on shows of it: its bounds,
// the configured and the effective values of the settings it tunes, and
// its last change.
type autoTuneView struct {
	MaxRuns, PerHundredMerges int
	Configured, Effective     string
	Reason                    string
	At                        time.Time
}

// autoTuneOf reads the autoTune view of q (nil when autoTune is off).
func (d *Dashboard) autoTuneOf(ctx context.Context, q *queue.Queue) (*autoTuneView, error) {
	if !q.Settings.AutoTune {
		return nil, nil
	}
	var t *queue.QueueTuning
	if qt, ok := d.reads.(QueueTunings); ok {
		var err error
		if t, err = qt.QueueTuning(ctx, q); err != nil {
			return nil, fmt.Errorf("failed to read the tuning of %s: %w", q.Key, err)
		}
	}
	v := &autoTuneView{MaxRuns: q.Settings.AutoTuneMaxRuns, PerHundredMerges: q.Settings.AutoTuneMaxRunsPerHundredMerges,
		Configured: autotune.FromSettings(q.Settings).String(),
		Effective:  autotune.FromSettings(queue.EffectiveSettings(q.Settings, t)).String()}
	if t != nil {
		v.Reason, v.At = t.Reason, t.At
	}
	return v, nil
}
