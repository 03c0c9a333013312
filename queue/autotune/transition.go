package autotune

import "fmt"

// A change of tuning does not stop the runs in progress: a run started
// under the tuning in force keeps running after the change, counted
// against the new tuning's room in the chain or outside it. Moving runs
// from outside the chain into it (isolation runs or bisections off, a
// longer chain) could then have more than Bounds.MaxRuns runs at once
// until the old ones end. With Tuner.InFlight set, the Tuner applies such
// a change in steps: at first only as much of it as the runs in progress
// leave room for, the rest at the next Retune calls, once they ended.

// outside is the room of t for runs outside the chain.
func (t Tuning) outside() int { return t.Runs() - t.Concurrency }

// fits reports whether, with chain and outside runs in progress, t keeps
// at most maxRuns runs at once: the engine starts a chain run only while
// fewer than t.Concurrency chain runs are in progress, and one outside the
// chain only while fewer than t's room outside are.
func fits(t Tuning, chain, outside, maxRuns int) bool {
	return max(chain, t.Concurrency)+max(outside, t.outside()) <= maxRuns
}

// stepToward is the tuning to put in force on the way to target: target
// when it fits beside the runs in progress, else target with less room in
// the chain (and outside it) so that it fits, else the tuning in force.
func (t *Tuner) stepToward(target Tuning) Tuning {
	if t.InFlight == nil {
		return target
	}
	chain, outside := t.InFlight()
	m := t.Bounds.MaxRuns
	if fits(target, chain, outside, m) {
		return target
	}
	s := target
	s.Concurrency = m - max(outside, target.outside())
	if s.Batch || s.Isolation {
		s.BisectionConcurrency = min(target.BisectionConcurrency, m-max(chain, s.Concurrency))
		if s.BisectionConcurrency < 1 {
			return t.current
		}
	}
	if s.Concurrency < 1 || !fits(s, chain, outside, m) || s.Validate() != nil {
		return t.current
	}
	return s
}

// complete takes the next step of a change applied in steps, if the runs in
// progress leave room for one.
func (t *Tuner) complete(now Observation) (Change, bool) {
	if t.target == (Tuning{}) || t.target == t.current {
		return Change{}, false
	}
	step := t.stepToward(t.target)
	if step == t.current {
		return Change{}, false
	}
	c := Change{From: t.current, To: step, Observed: now,
		Reason: fmt.Sprintf("completing the change to %s as the runs in progress end: %s", t.target, diff(t.current, step))}
	t.current = step
	return c, true
}
