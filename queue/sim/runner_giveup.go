package sim

import (
	"math"
	"time"
)

// watchWaits checks, every tenth of limit (at least every simulated
// minute), whether the run's p95 time-to-merge is sure to exceed limit,
// and then sets r.beyond, which stops the run (RunOptions.GiveUpBeyond).
// The checks only read the store: the engine sees nothing of them.
func (r *oursRun) watchWaits(limit time.Duration) {
	every := max(limit/10, time.Minute)
	late := map[int]bool{} // PR index → waited longer than limit
	skip := int(math.Floor(r.w.Warmup * float64(len(r.prs))))
	var check func()
	check = func() {
		if r.drained() {
			return
		}
		active, err := r.store.ListActiveEntries(r.ctx, r.q.ID)
		if err != nil {
			r.fail(err)
			return
		}
		now := r.sim.Elapsed()
		for _, e := range active {
			if i, ok := r.index[e.PRNumber]; ok && i >= skip && now-r.prs[i].Arrival > limit {
				late[i] = true
			}
		}
		if lateBeyond(len(late), len(r.prs)-skip) {
			r.beyond = true
			return
		}
		r.sim.After(every, check)
	}
	r.sim.After(every, check)
}

// lateBeyond reports whether late PRs of the measured ones (those after
// the warm-up, which Summarize's percentiles cover) are more than 5 %:
// once that many waited longer than a limit, the p95 exceeds it, however
// the run goes on (but for late PRs rejected later, which the p95 leaves
// out: the failure rate of a few late ones).
func lateBeyond(late, measured int) bool {
	return float64(late) > 0.05*float64(measured)
}
