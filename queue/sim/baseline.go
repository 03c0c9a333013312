package sim

import (
	"math/rand/v2"
	"time"
)

// harness is the abstract world the baseline policies run in: PRs are
// sets of changes, a CI build tests the merged PRs plus a list of queued
// ones, and its outcome is known from the workload (broken PRs, textual
// conflicts, flakes). The engine policy ("ours") uses the simulated GitHub
// instead (runner_ours.go).
type harness struct {
	sim    *Sim
	w      Workload
	prs    []PR
	rec    *Recorder
	ci     *rand.Rand
	common *commonCI // RunOptions.CommonRandom; nil: draws in the order runs start (ci)
	merged []bool
	// baseRed is set once a broken PR landed: every later tree fails.
	baseRed bool
	// pol is the policy run in the harness; with resubmit set, a good PR
	// it rejects arrives again ResubmitAfter later (RunOptions.Resubmit).
	pol      baseline
	resubmit bool
}

// ciBuild is one CI run of the target branch plus prs, in order.
type ciBuild struct {
	prs       []int
	start     time.Duration
	pass      bool
	done      bool
	cancelled bool
	ev        *Event
}

func newHarness(s *Sim, w Workload, prs []PR, rec *Recorder, seed uint64) *harness {
	return &harness{sim: s, w: w, prs: prs, rec: rec, merged: make([]bool, len(prs)),
		ci: rand.New(rand.NewPCG(seed, 0xc1c1c1c1))}
}

// intrinsic reports whether the tree "merged PRs + prs" is good: no broken
// PR in it, and no two of its PRs conflicting.
func (h *harness) intrinsic(prs []int) bool {
	if h.baseRed {
		return false
	}
	in := make(map[int]bool, len(prs))
	for _, i := range prs {
		in[i] = true
	}
	for _, i := range prs {
		if h.prs[i].Bad {
			return false
		}
		for _, c := range h.prs[i].Conflicts {
			if in[c] || h.merged[c] {
				return false
			}
		}
	}
	return true
}

// test starts a CI run of prs on the current target branch; onDone runs
// when it finishes (not when it is cancelled). oracle runs never flake.
// Duration and flake are drawn for every run, so the random stream does not
// depend on outcomes; with common random numbers they come from the run's
// last PR and how many runs ended with it before (commonCI), as in our
// engine's runs.
func (h *harness) test(prs []int, oracle bool, onDone func(*ciBuild)) *ciBuild {
	rng := h.ci
	if h.common != nil && len(prs) > 0 {
		rng = h.common.next(prs[len(prs)-1])
	}
	dur := h.w.SampleCI(rng)
	flaked := rng.Float64() < h.w.FlakeRateAt(h.sim.Elapsed())
	b := &ciBuild{prs: append([]int(nil), prs...), start: h.sim.Elapsed()}
	b.pass = oracle || (h.intrinsic(prs) && !flaked)
	h.rec.Runs++
	b.ev = h.sim.After(dur, func() {
		b.done = true
		h.rec.CITime += h.sim.Elapsed() - b.start
		onDone(b)
	})
	return b
}

// cancel stops a run that is no longer needed; its CI time counts until now.
func (h *harness) cancel(b *ciBuild) {
	if b == nil || b.done || b.cancelled {
		return
	}
	b.cancelled = true
	h.sim.Cancel(b.ev)
	h.rec.CITime += h.sim.Elapsed() - b.start
}

func (h *harness) merge(i int) {
	h.merged[i] = true
	if h.prs[i].Bad {
		h.baseRed = true
	}
	h.rec.Conclude(i, Merged, h.sim.Elapsed())
}

// reject ends PR i as failed. With resubmit set, a PR that would pass on
// its own now (a good PR rejected for a flake, not conflicting with what
// merged) is not concluded: it arrives again ResubmitAfter later, keeping
// its first arrival, as it does in a run of our engine.
func (h *harness) reject(i int) {
	if h.resubmit && h.intrinsic([]int{i}) {
		h.rec.Resubmitted++
		h.sim.After(ResubmitAfter, func() { h.pol.arrive(i) })
		return
	}
	h.rec.Conclude(i, Rejected, h.sim.Elapsed())
}

// baseline is a queue policy run in the harness; arrive hands it a new PR.
type baseline interface {
	arrive(i int)
}
