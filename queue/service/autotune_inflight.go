package service

import (
	"context"
	"math"

	"github.com/mergequeue/mq/queue"
)

// runsInFlight counts a queue's CI runs in progress (being published or
// running) in the speculative chain and outside it (bisections, isolation
// runs), for autotune.Tuner.InFlight: a change of tuning then never lets
// the queue have more than autoTuneMaxRuns runs at once while the runs
// started under the previous tuning end. A store error counts as no room
// at all (the tuner keeps the tuning in force and tries again later).
func runsInFlight(ctx context.Context, st queue.Store, queueID int64) (chain, outside int) {
	runs, err := st.ListOpenRuns(ctx, queueID)
	if err != nil {
		return math.MaxInt32, math.MaxInt32
	}
	for _, r := range runs {
		switch {
		case r.Status != queue.RunInProgress && r.Status != queue.RunBuilding:
		case r.Bisection || r.Isolation:
			outside++
		default:
			chain++
		}
	}
	return chain, outside
}
