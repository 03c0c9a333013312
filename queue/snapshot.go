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

// Ordered returns the admitted entries in queue order: by priority value,
// then admission sequence (SPEC §5.1).
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

// expectedBase walks the merge log from the run's base through the entries
// ahead that the queue has merged since, returning the target head the run's
// tree is predicted on now and the entries ahead still to merge.
func (s *Snapshot) expectedBase(r *TestRun) (head string, rest []string, ok bool) {
	merged := map[string]MergeRecord{}
	for _, m := range s.Merges {
		merged[m.EntryID] = m
	}
	cur := r.BaseSHA
	k := 0
	for ; k < len(r.Ahead); k++ {
		m, found := merged[r.Ahead[k]]
		if !found {
			break
		}
		if m.Before != cur {
			return "", nil, false
		}
		cur = m.After
	}
	return cur, r.Ahead[k:], true
}

// runValid reports whether r still tests what entry e would be tested on now:
// the target head equals r's base plus the queue's merges of entries ahead,
// and the entries still ahead are exactly ahead. Otherwise it names why not.
func (s *Snapshot) runValid(r *TestRun, ahead []*Entry) (bool, Reason) {
	head, rest, ok := s.expectedBase(r)
	if !ok || head != s.TargetHead {
		return false, ReasonRestartedBaseMoved
	}
	if len(rest) != len(ahead) {
		return false, ReasonRestartedDependencyRemoved
	}
	for i := range rest {
		if rest[i] != ahead[i].ID {
			return false, ReasonRestartedDependencyRemoved
		}
	}
	return true, ""
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
