package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
)

// commonCI is the source of CI durations and flakes with common random
// numbers (RunOptions.CommonRandom): a PR's n-th run as the last PR of a
// tree draws from a source that depends only on the seed, the PR's index
// and n, whatever the policy and whatever order its runs start in. Our
// engine and the baselines share it, so every policy simulated on a seed
// sees the same CI for the same run of a PR and their differences are less
// noisy.
type commonCI struct {
	seed     uint64
	attempts map[int]int // PR index → its runs so far as the last PR of a tree
}

func newCommonCI(seed uint64) *commonCI { return &commonCI{seed: seed, attempts: map[int]int{}} }

// next returns the source of the next run whose tree ends with PR index.
func (c *commonCI) next(index int) *rand.Rand {
	c.attempts[index]++
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d/%d", c.seed, index, c.attempts[index])
	return rand.New(rand.NewPCG(h.Sum64(), 0xc1c1c1c1))
}

// ciRand is the source of the CI duration and flake of job: the run's own
// sequence (r.ci), or with RunOptions.CommonRandom the common one for the
// PR the run tests (the last of its tree), so that settings and baselines
// simulated on one seed give a PR's n-th run the same duration and flake
// (commonCI).
func (r *oursRun) ciRand(job CIJob) *rand.Rand {
	if r.common == nil || len(job.Contains) == 0 {
		return r.ci
	}
	return r.common.next(r.index[job.Contains[len(job.Contains)-1]])
}
