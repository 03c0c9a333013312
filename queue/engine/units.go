package engine

import (
	"math/bits"

	"github.com/mergequeue/mq/queue"
)

// unit is what one run tests: consecutive chain entries sharing a run (or
// a single entry without one), with the entries its tests include ahead of
// it: every entry before it in single mode, its transitive dependencies in
// parallel mode. The entries ahead are listed only on demand
// (aheadEntries): in a parallel queue of n units, listing them all costs
// O(n²), while a step needs the lists of the units with runs and of the
// few it starts.
type unit struct {
	entries []*queue.Entry
	run     *queue.TestRun // nil if the entries have none (or it is closed)
	lay     *unitLayout    // nil for a unit made up on the spot (no ahead)
	i       int            // the unit's index in lay
}

// unitLayout is a queue's units and what each has ahead, shared by its
// units (value copies of unit all see its lazily built lists).
type unitLayout struct {
	// chain is the single-mode chain; start[i] the chain index of unit i's
	// first entry (its ahead are chain[:start[i]]).
	chain []*queue.Entry
	start []int
	// groups are parallel mode's units' entries; deps[i] the bitset of
	// the groups unit i depends on (transitively); ahead[i] its list once
	// built.
	groups [][]*queue.Entry
	deps   [][]uint64
	ahead  [][]*queue.Entry
	listed []bool
	// at is every entry's unit index (parallel mode: its group).
	at map[string]int
}

// aheadEntries lists the entries the unit's tests include ahead of it, in
// queue order.
func (u unit) aheadEntries() []*queue.Entry {
	l := u.lay
	switch {
	case l == nil:
		return nil
	case l.deps == nil:
		return l.chain[:l.start[u.i]]
	case l.listed[u.i]:
		return l.ahead[u.i]
	}
	d := l.deps[u.i]
	size := 0
	forEachBit(d, func(g int) { size += len(l.groups[g]) })
	out := make([]*queue.Entry, 0, size)
	forEachBit(d, func(g int) { out = append(out, l.groups[g]...) })
	l.ahead[u.i], l.listed[u.i] = out, true
	return out
}

// hasAhead reports whether anything is ahead of the unit.
func (u unit) hasAhead() bool {
	l := u.lay
	switch {
	case l == nil:
		return false
	case l.deps == nil:
		return l.start[u.i] > 0
	}
	for _, w := range l.deps[u.i] {
		if w != 0 {
			return true
		}
	}
	return false
}

// dependsOn reports whether the entry with ID id is ahead of the unit, in
// constant time.
func (u unit) dependsOn(id string) bool {
	l := u.lay
	if l == nil {
		return false
	}
	j, ok := l.at[id]
	switch {
	case !ok:
		return false
	case l.deps == nil:
		return j < u.i
	}
	return l.deps[u.i][j/64]&(1<<(j%64)) != 0
}

// forEachBit calls fn with the index of every set bit, in order.
func forEachBit(set []uint64, fn func(int)) {
	for w, word := range set {
		for word != 0 {
			b := word & -word
			fn(w*64 + bits.TrailingZeros64(b))
			word ^= b
		}
	}
}

// units lays the chain out in units, in queue order.
func (s *Snapshot) units(chain []*queue.Entry) []unit {
	if s.Parallel() {
		return s.parallelUnits(chain)
	}
	lay := &unitLayout{chain: chain, at: make(map[string]int, len(chain))}
	var out []unit
	for i := 0; i < len(chain); {
		e, j := chain[i], i+1
		for e.RunID != "" && j < len(chain) && chain[j].RunID == e.RunID {
			j++
		}
		n := len(out)
		for _, x := range chain[i:j] {
			lay.at[x.ID] = n
		}
		lay.start = append(lay.start, i)
		out = append(out, unit{entries: chain[i:j], run: s.Run(e.RunID), lay: lay, i: n})
		i = j
	}
	return out
}

// parallelUnits lays the chain out in units: an entry alone, or the
// consecutive entries sharing a run (a batch, whose targets are the union
// of its members', SPEC §5.5). A unit's ahead are its transitive
// dependencies: the entries before it whose impacted targets overlap its
// own or those of another dependency, in queue order.
//
// It runs in O(n·(t + n/64)) for n units of t targets each: the closure
// of the last earlier unit touching a target already holds every earlier
// one touching it (they overlap), and likewise for the last ALL unit
// (which overlaps every non-empty unit before it) and the last unit of
// unknown targets (which overlaps everything). An ALL unit depends on every
// earlier unit whose targets overlap anything, kept as one more bitset.
func (s *Snapshot) parallelUnits(chain []*queue.Entry) []unit {
	lay := &unitLayout{at: make(map[string]int, len(chain))}
	for i := 0; i < len(chain); {
		j := i + 1
		for chain[i].RunID != "" && j < len(chain) && chain[j].RunID == chain[i].RunID {
			j++
		}
		for _, x := range chain[i:j] {
			lay.at[x.ID] = len(lay.groups)
		}
		lay.groups = append(lay.groups, chain[i:j])
		i = j
	}
	groups := lay.groups
	n := len(groups)
	words := (n + 63) / 64
	bitsets := make([]uint64, n*words) // one allocation for every closure
	lay.deps = make([][]uint64, n)
	lay.ahead, lay.listed = make([][]*queue.Entry, n), make([]bool, n)
	// before holds every unit laid out so far; overlapping those whose
	// targets overlap something (unknown, ALL or a non-empty list): an
	// ALL unit depends on each of them.
	before, overlapping := make([]uint64, words), make([]uint64, words)
	lastTouch := map[string]int{}
	lastAll, lastUnknown := -1, -1
	for i, g := range groups {
		d := bitsets[i*words : (i+1)*words : (i+1)*words]
		lay.deps[i] = d
		take := func(j int) {
			if j < 0 {
				return
			}
			d[j/64] |= 1 << (j % 64)
			for w, set := range lay.deps[j] {
				d[w] |= set
			}
		}
		te := s.unitTargets(g)
		switch {
		case te == nil:
			copy(d, before)
		case te.All:
			take(lastUnknown) // its closure: everything before it
			for w, set := range overlapping {
				d[w] |= set
			}
		default:
			take(lastUnknown)
			if te.Len() > 0 {
				take(lastAll)
				for name := range te.set {
					if j, ok := lastTouch[name]; ok {
						take(j)
					}
				}
			}
		}
		before[i/64] |= 1 << (i % 64)
		if te == nil || te.All || te.Len() > 0 {
			overlapping[i/64] |= 1 << (i % 64)
		}
		switch {
		case te == nil:
			lastUnknown = i
		case te.All:
			lastAll = i
		default:
			for name := range te.set {
				lastTouch[name] = i
			}
		}
	}
	out := make([]unit, n)
	for i, g := range groups {
		out[i] = unit{entries: g, run: s.Run(g[0].RunID), lay: lay, i: i}
	}
	return out
}
