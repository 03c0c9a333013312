package autotune

import (
	"math"
	"slices"
)

// TargetsKept is how many of the latest PRs' impacted targets the Observer
// keeps, whatever their age: which targets PRs touch is a property of the
// repository, not of the hour, and a share of ALL PRs of 0.2 % (the
// monorepo preset) needs about a thousand PRs to be seen at all.
const TargetsKept = 1000

// MinTargeted is the fewest PRs with known targets a parallel-mode queue
// is tuned on (Tuner.Retune): fewer say nothing of how its lanes overlap.
const MinTargeted = 10

// targetSet is one PR's impacted targets: every target (all), or list.
type targetSet struct {
	pr   int
	all  bool
	list []string
}

// Targeted records the impacted targets of PR pr of a parallel-mode
// queue: every target (all), or list. The observer keeps the latest
// TargetsKept PRs; a PR it keeps already (concluded again after it was
// submitted again) is not counted twice.
func (o *Observer) Targeted(pr int, all bool, list []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.targetPRs == nil {
		o.targetPRs = map[int]bool{}
	}
	if o.targetPRs[pr] {
		return
	}
	ts := targetSet{pr: pr, all: all}
	if !all {
		ts.list = slices.Compact(slices.Sorted(slices.Values(list)))
	}
	o.targeted = append(o.targeted, ts)
	o.targetPRs[pr] = true
	if n := len(o.targeted); n > TargetsKept {
		for _, old := range o.targeted[:n-TargetsKept] {
			delete(o.targetPRs, old.pr)
		}
		o.targeted = append(o.targeted[:0], o.targeted[n-TargetsKept:]...)
	}
}

// HasTargets reports whether the observer keeps PR pr's targets already:
// a caller need not read them again.
func (o *Observer) HasTargets(pr int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.targetPRs[pr]
}

// observeTargets sets obs's target figures from the PRs kept: the share
// of ALL PRs, the mean number of targets of the others, and the share of
// pairs of them that share a target (each pair compared once, about half a
// million comparisons of a few targets at TargetsKept).
func (o *Observer) observeTargets(obs *Observation) {
	obs.TargetedPRs = len(o.targeted)
	if len(o.targeted) == 0 {
		return
	}
	var lists [][]string
	all, sum := 0, 0
	for _, ts := range o.targeted {
		if ts.all {
			all++
			continue
		}
		lists = append(lists, ts.list)
		sum += len(ts.list)
	}
	obs.AllShare = float64(all) / float64(len(o.targeted))
	if len(lists) == 0 {
		return
	}
	obs.TargetsPerPR = math.Max(float64(sum)/float64(len(lists)), 1)
	pairs, overlapping := 0, 0
	for i := range lists {
		for j := i + 1; j < len(lists); j++ {
			pairs++
			if intersect(lists[i], lists[j]) {
				overlapping++
			}
		}
	}
	if pairs > 0 {
		obs.Overlap = float64(overlapping) / float64(pairs)
	}
}

// intersect reports whether two sorted lists share an element.
func intersect(a, b []string) bool {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			return true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return false
}
