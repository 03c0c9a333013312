package engine

import (
	"time"

	"github.com/mergequeue/mq/queue"
)

// Snapshot is everything the engine decides from: one queue's state and the
// facts known about the world.
type Snapshot struct {
	Queue *queue.Queue
	// TargetHead is the target branch's current head commit.
	TargetHead string
	// Entries are the queue's active entries (any order).
	Entries []*queue.Entry
	// Runs are the queue's open (not closed) runs.
	Runs []*queue.TestRun
	// Checks are the recorded check results, by commit SHA.
	Checks map[string][]queue.CheckResult
	// Merges is the queue's merge log since the oldest base of an open run,
	// oldest first (the engine follows it from each run's base to the
	// target head; older merges decide nothing).
	Merges []queue.MergeRecord
	// Targets are the impacted targets by PR number (parallel mode): of
	// active entries, for their submitted head, and of the PRs in Merges.
	Targets map[int]*TargetSet
	// Required are the checks a run must pass: the queue's requiredStatuses,
	// else its branch's protection (nil while unknown: no run starts).
	Required *RequiredChecks
	// Recent are the queue's latest successful runs (closed ones too),
	// which set the testing timeout under TestingTimeoutFromHistory (loaded
	// only then: nil otherwise).
	Recent []*queue.TestRun
	// RetryBudget is how many more runs that failed on a check may be
	// tried again now (Settings.CheckRetries, within
	// CheckRetryBudgetPercent of the last hour's runs); the service
	// computes it only when a run in progress has failed.
	RetryBudget int

	// idx holds lookups built on first use; Next drops it on entry, so a
	// snapshot changed between calls (as tests do) is indexed afresh.
	idx *snapshotIndex
}

// snapshotIndex speeds up the engine's lookups on large queues.
type snapshotIndex struct {
	runs     map[string]*queue.TestRun
	entries  map[string]*queue.Entry
	byBefore map[string]queue.MergeRecord
	byEntry  map[string]queue.MergeRecord
}

func (s *Snapshot) index() *snapshotIndex {
	if s.idx == nil {
		x := &snapshotIndex{runs: make(map[string]*queue.TestRun, len(s.Runs)), entries: make(map[string]*queue.Entry, len(s.Entries)),
			byBefore: make(map[string]queue.MergeRecord, len(s.Merges)), byEntry: make(map[string]queue.MergeRecord, len(s.Merges))}
		for _, r := range s.Runs {
			if _, dup := x.runs[r.ID]; !dup {
				x.runs[r.ID] = r
			}
		}
		for _, e := range s.Entries {
			x.entries[e.ID] = e
		}
		for _, m := range s.Merges {
			x.byBefore[m.Before] = m
			x.byEntry[m.EntryID] = m
		}
		s.idx = x
	}
	return s.idx
}

// Parallel reports whether the queue tests in parallel mode.
func (s *Snapshot) Parallel() bool { return s.Queue.Settings.Mode == queue.ModeParallel }

// targetsOf returns the entry's targets for its submitted head, or nil.
func (s *Snapshot) targetsOf(e *queue.Entry) *TargetSet {
	if t := s.Targets[e.PRNumber]; t != nil && t.SHA == e.PRSHA {
		return t
	}
	return nil
}

// independent reports whether the merged PR pr cannot have affected the
// unit `entries` (parallel mode: their targets do not overlap).
func (s *Snapshot) independent(pr int, entries []*queue.Entry) bool {
	if !s.Parallel() {
		return false
	}
	t := s.Targets[pr]
	if t == nil {
		return false
	}
	for _, e := range entries {
		if t.Overlaps(s.targetsOf(e)) {
			return false
		}
	}
	return true
}

// Entry returns the active entry with that ID, or nil.
func (s *Snapshot) Entry(id string) *queue.Entry { return s.index().entries[id] }

// Run returns the open run with that ID, or nil.
func (s *Snapshot) Run(id string) *queue.TestRun {
	if id == "" {
		return nil
	}
	return s.index().runs[id]
}

// Ordered returns the admitted entries in queue order (queue.InQueueOrder,
// SPEC §5.1).
func (s *Snapshot) Ordered() []*queue.Entry { return queue.InQueueOrder(s.Entries) }

// chainOf is the single-mode chain of the ordered admitted entries: them
// without the ones waiting on a conflicting entry ahead of them (SPEC §5.9),
// which keep their place but are nobody's base while they wait.
func (s *Snapshot) chainOf(ordered []*queue.Entry) []*queue.Entry {
	pos := map[string]int{}
	for i, e := range ordered {
		pos[e.ID] = i
	}
	var out []*queue.Entry
	for i, e := range ordered {
		if j, ok := pos[e.BlockedBy]; ok && j < i {
			continue
		}
		out = append(out, e)
	}
	return out
}

// unitTargets is the union of the entries' targets: unknown (nil) if one
// is unknown, ALL if one is ALL.
func (s *Snapshot) unitTargets(es []*queue.Entry) *TargetSet {
	if len(es) == 1 {
		return s.targetsOf(es[0])
	}
	u := &TargetSet{set: map[string]struct{}{}}
	for _, e := range es {
		t := s.targetsOf(e)
		if t == nil {
			return nil
		}
		u.All = u.All || t.All
		for name := range t.set {
			u.set[name] = struct{}{}
		}
	}
	if u.All {
		u.set = nil
	}
	return u
}

// unitValid reports whether run r still tests the unit `entries` on what it
// would be tested on now: following the merge log from r's base reaches the
// target head, merging first the leading entries of r's sequence (r.Ahead
// then r.EntryIDs) in order, and otherwise only PRs independent of the unit
// (parallel mode); and the rest of that sequence is exactly `ahead` followed
// by `entries`. Otherwise it names the restart reason.
func (s *Snapshot) unitValid(r *queue.TestRun, ahead, entries []*queue.Entry) (bool, queue.Reason) {
	seq := make([]string, 0, len(r.Ahead)+len(r.EntryIDs))
	seq = append(append(seq, r.Ahead...), r.EntryIDs...)
	rest, ok := s.walkToHead(r.BaseSHA, seq, entries)
	if !ok {
		if s.anyLeft(seq) {
			// An entry it tested left the queue: that is why the log
			// cannot be followed (its targets are unknown), not a push.
			return false, queue.ReasonRestartedDependencyRemoved
		}
		return false, queue.ReasonRestartedBaseMoved
	}
	if len(rest) != len(ahead)+len(entries) {
		return false, queue.ReasonRestartedDependencyRemoved
	}
	for i, id := range rest {
		want := ""
		if i < len(ahead) {
			want = ahead[i].ID
		} else {
			want = entries[i-len(ahead)].ID
		}
		if id != want {
			return false, queue.ReasonRestartedDependencyRemoved
		}
	}
	return true, ""
}

// anyLeft reports whether an entry of seq left the queue without merging
// (neither active nor in the merge log).
func (s *Snapshot) anyLeft(seq []string) bool {
	x := s.index()
	for _, id := range seq {
		if _, merged := x.byEntry[id]; x.entries[id] == nil && !merged {
			return true
		}
	}
	return false
}

// walkToHead follows the queue's merge log from base to the target head.
// Merges of seq's entries must come in seq's order, except that in
// parallel mode an entry of seq may land before earlier entries of seq
// that are independent of it (their impacted targets do not overlap: the
// queue merges independent units in any order, and merging them in either
// order gives the same tree). Any other merge must be of a PR independent
// of the unit. It returns the entries of seq not merged yet, in seq's
// order; ok is false when the log does not lead to the head that way (the
// branch moved outside the queue, or something the unit depends on
// landed out of order).
func (s *Snapshot) walkToHead(base string, seq []string, unit []*queue.Entry) ([]string, bool) {
	byBefore := s.index().byBefore
	var at map[string]int // position in seq, built only if something else merged
	var merged []bool     // seq entries merged out of order
	cur, k := base, 0
	for steps := 0; cur != s.TargetHead; steps++ {
		m, found := byBefore[cur]
		if !found || steps > len(s.Merges) {
			return nil, false
		}
		cur = m.After
		if k < len(seq) && m.EntryID == seq[k] {
			for k++; k < len(seq) && merged != nil && merged[k]; k++ {
			}
			continue
		}
		if at == nil {
			at = make(map[string]int, len(seq))
			for i, id := range seq {
				at[id] = i
			}
		}
		if j, ok := at[m.EntryID]; ok {
			if j < k || (merged != nil && merged[j]) || !s.landsBefore(m.PRNumber, seq[k:j], merged, k) {
				return nil, false
			}
			if merged == nil {
				merged = make([]bool, len(seq))
			}
			merged[j] = true
			continue
		}
		if !s.independent(m.PRNumber, unit) {
			return nil, false
		}
	}
	rest := make([]string, 0, len(seq)-k)
	for i := k; i < len(seq); i++ {
		if merged == nil || !merged[i] {
			rest = append(rest, seq[i])
		}
	}
	return rest, true
}

// landsBefore reports whether merged PR pr may have landed before the
// entries of between (seq[k:j], those not merged yet at that point, which
// may have merged since) without changing what a run of seq tested:
// parallel mode, and pr is independent of each of them.
func (s *Snapshot) landsBefore(pr int, between []string, merged []bool, k int) bool {
	if !s.Parallel() {
		return false
	}
	t := s.Targets[pr]
	if t == nil {
		return false
	}
	for i, id := range between {
		if merged != nil && merged[k+i] {
			continue
		}
		if t.Overlaps(s.seqTargets(id)) {
			return false
		}
	}
	return true
}

// seqTargets are the impacted targets of an entry of a run's sequence:
// an active entry's for its submitted head, a merged one's as it merged;
// nil (unknown) otherwise.
func (s *Snapshot) seqTargets(id string) *TargetSet {
	x := s.index()
	if e := x.entries[id]; e != nil {
		return s.targetsOf(e)
	}
	if m, ok := x.byEntry[id]; ok {
		return s.Targets[m.PRNumber]
	}
	return nil
}

// walkMerges follows the merge log from base through the leading entries of
// seq that the queue merged in that order, returning the resulting head and
// the entries not merged yet; ok is false if the log does not chain.
func (s *Snapshot) walkMerges(base string, seq []string) (string, []string, bool) {
	merged := s.index().byEntry
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

func ids(es []*queue.Entry) []string {
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

// RequiredChecks are the check names a test run must pass (SPEC §6).
type RequiredChecks struct {
	// Names are the queue's requiredStatuses when set (empty: explicitly
	// none, a run passes once built), else branch protection's.
	Names []string
	// Unset: the queue sets no requiredStatuses and branch protection
	// requires nothing. No run starts: its entries fail
	// no_required_statuses (a queue that checks nothing is chosen
	// explicitly).
	Unset bool
}
