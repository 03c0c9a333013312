package queue

import (
	"sort"
	"time"
)

// Snapshot is everything the engine decides from: one queue's state and the
// facts known about the world.
type Snapshot struct {
	Queue *Queue
	// TargetHead is the target branch's current head commit.
	TargetHead string
	// Entries are the queue's active entries (any order).
	Entries []*Entry
	// Runs are the queue's open (not closed) runs.
	Runs []*TestRun
	// Checks are the recorded check results, by commit SHA.
	Checks map[string][]CheckResult
	// Merges is the queue's recent merge log, oldest first.
	Merges []MergeRecord
}

func (s *Snapshot) entry(id string) *Entry {
	for _, e := range s.Entries {
		if e.ID == id {
			return e
		}
	}
	return nil
}

func (s *Snapshot) run(id string) *TestRun {
	if id == "" {
		return nil
	}
	for _, r := range s.Runs {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Ordered returns the admitted entries in queue order (SPEC §5.1): first
// the entries whose tests started (frozen, in Position order), then the
// others by priority value and admission sequence.
func (s *Snapshot) Ordered() []*Entry {
	var out []*Entry
	for _, e := range s.Entries {
		if e.Admitted() {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return entryLess(out[i], out[j]) })
	return out
}

func entryLess(a, b *Entry) bool {
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

// chain is the single-mode chain: the ordered admitted entries, without the
// ones waiting on a conflicting entry ahead of them (SPEC §5.9), which keep
// their place but are nobody's base while they wait.
func (s *Snapshot) chain() []*Entry {
	ordered := s.Ordered()
	pos := map[string]int{}
	for i, e := range ordered {
		pos[e.ID] = i
	}
	var out []*Entry
	for i, e := range ordered {
		if j, ok := pos[e.BlockedBy]; ok && j < i {
			continue
		}
		out = append(out, e)
	}
	return out
}

// landingBase is the target head the next unmerged entry of run r lands
// on: r's base plus the queue's merges of r's sequence so far.
func (s *Snapshot) landingBase(r *TestRun) (string, bool) {
	head, _, ok := s.walkMerges(r.BaseSHA, append(append([]string{}, r.Ahead...), r.EntryIDs...))
	return head, ok
}

// unit is what one run tests: consecutive chain entries sharing a run (or
// a single entry without one).
type unit struct {
	entries []*Entry
	run     *TestRun // nil if the entries have none (or it is closed)
	pos     int      // chain index of the first entry
}

// units groups the chain into units.
func (s *Snapshot) units(chain []*Entry) []unit {
	var out []unit
	for i := 0; i < len(chain); {
		e, j := chain[i], i+1
		for e.RunID != "" && j < len(chain) && chain[j].RunID == e.RunID {
			j++
		}
		out = append(out, unit{entries: chain[i:j], run: s.run(e.RunID), pos: i})
		i = j
	}
	return out
}

// unitValid reports whether run r still tests the unit `entries` on what it
// would be tested on now: the target head equals r's base plus the queue's
// merges of the first entries of r's sequence (r.Ahead then r.EntryIDs), and
// the rest of that sequence is exactly `ahead` followed by `entries`.
// Otherwise it names the restart reason.
func (s *Snapshot) unitValid(r *TestRun, ahead, entries []*Entry) (bool, Reason) {
	seq := append(append([]string{}, r.Ahead...), r.EntryIDs...)
	head, rest, ok := s.walkMerges(r.BaseSHA, seq)
	if !ok || head != s.TargetHead {
		return false, ReasonRestartedBaseMoved
	}
	want := append(ids(ahead), ids(entries)...)
	if len(rest) != len(want) {
		return false, ReasonRestartedDependencyRemoved
	}
	for i := range rest {
		if rest[i] != want[i] {
			return false, ReasonRestartedDependencyRemoved
		}
	}
	return true, ""
}

// walkMerges follows the merge log from base through the leading entries of
// seq that the queue merged in that order, returning the resulting head and
// the entries not merged yet; ok is false if the log does not chain.
func (s *Snapshot) walkMerges(base string, seq []string) (string, []string, bool) {
	merged := map[string]MergeRecord{}
	for _, m := range s.Merges {
		merged[m.EntryID] = m
	}
	cur, k := base, 0
	for ; k < len(seq); k++ {
		m, found := merged[seq[k]]
		if !found {
			break
		}
		if m.Before != cur {
			return "", nil, false
		}
		cur = m.After
	}
	return cur, seq[k:], true
}

func ids(es []*Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func minTime(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
