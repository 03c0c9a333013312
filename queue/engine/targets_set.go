package engine

import "github.com/mergequeue/mq/queue"

// TargetSet is a PR's impacted targets for one head, ready for overlap
// tests (SPEC §5.5).
type TargetSet struct {
	SHA string
	All bool
	set map[string]struct{}
}

// NewTargetSet indexes uploaded targets.
func NewTargetSet(t *queue.Targets) *TargetSet {
	ts := &TargetSet{SHA: t.SHA, All: t.All, set: make(map[string]struct{}, len(t.List))}
	for _, name := range t.List {
		ts.set[name] = struct{}{}
	}
	return ts
}

// Len is the number of listed targets (0 for ALL).
func (t *TargetSet) Len() int { return len(t.set) }

// Overlaps reports whether two PRs may conflict: ALL intersects every
// other set but an empty one, an empty list intersects nothing, and an
// unknown set (nil) is assumed to overlap everything.
func (t *TargetSet) Overlaps(o *TargetSet) bool {
	switch {
	case t == nil || o == nil:
		return true
	case (!t.All && len(t.set) == 0) || (!o.All && len(o.set) == 0):
		return false
	case t.All || o.All:
		return true
	}
	small, big := t.set, o.set
	if len(small) > len(big) {
		small, big = big, small
	}
	for name := range small {
		if _, ok := big[name]; ok {
			return true
		}
	}
	return false
}
