package queue

import "sort"

// InQueueOrder returns the admitted entries among entries (any order) in
// queue order (SPEC §5.1): first those whose tests started, frozen in
// Position order, then the others by priority value, admission sequence
// and PR number. The engine plans in this order and everything that shows
// a position uses it. It sorts a new slice; entries is not modified.
func InQueueOrder(entries []*Entry) []*Entry {
	var out []*Entry
	for _, e := range entries {
		if e.Admitted() {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return AheadOf(out[i], out[j]) })
	return out
}

// AheadOf reports whether entry a comes before entry b in queue order
// (InQueueOrder).
func AheadOf(a, b *Entry) bool {
	if af, bf := a.Position > 0, b.Position > 0; af != bf {
		return af
	} else if af && a.Position != b.Position {
		return a.Position < b.Position
	}
	if a.PriorityValue != b.PriorityValue {
		return a.PriorityValue < b.PriorityValue
	}
	if a.Seq != b.Seq {
		return a.Seq < b.Seq
	}
	return a.PRNumber < b.PRNumber
}
