package sim

// oracle knows every outcome (background note §C3 B0, Uber's Oracle): it
// never tests a broken PR (rejected on arrival), tests each good PR exactly
// once on arrival with unlimited CI capacity, the run never flakes, and the
// PR merges when its run ends. Time-to-merge is the PR's own CI duration
// and CI runs per merged PR is exactly 1: the lower bounds for both.
type oracle struct{ h *harness }

func (o *oracle) arrive(i int) {
	if !o.h.intrinsic([]int{i}) {
		o.h.reject(i)
		return
	}
	o.h.test([]int{i}, true, func(*ciBuild) { o.h.merge(i) })
}
