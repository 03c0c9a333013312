package memstore

import (
	"sync"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/changes"
)

// prKey identifies a PR in a queue.
type prKey struct {
	queueID int64
	pr      int
}

// commitKey identifies a commit of a repository.
type commitKey struct {
	repo queue.Repo
	sha  string
}

// checkKey identifies one status or check run on a commit.
type checkKey struct {
	kind queue.CheckKind
	name string
}

// db is the data. Stored values are owned by db and never handed out; every
// index below points at the same stored value as its primary map.
type db struct {
	mu sync.Mutex
	// versions counts the writes of each queue (Store.QueueVersion); it is
	// bumped under mu, after the write.
	versions changes.Versions

	nextQueueID  int64
	nextEventID  int64
	nextNoticeID int64

	queues   map[int64]*queue.Queue
	queueIDs map[queue.QueueKey]int64 // by folded key (queue.QueueKey.Fold)

	entries       map[string]*queue.Entry
	entryIDs      map[prKey]string
	queueEntries  map[int64]map[string]*queue.Entry // every entry of a queue
	activeEntries map[int64]map[string]*queue.Entry // its non-terminal entries

	runs      map[string]*queue.TestRun
	queueRuns map[int64]map[string]*queue.TestRun // every run of a queue
	openRuns  map[int64]map[string]*queue.TestRun // its runs not Closed
	runsBySHA map[string]map[string]*queue.TestRun

	checks  map[commitKey]map[checkKey]queue.CheckResult
	targets map[prKey]queue.Targets
	events  map[int64][]queue.Event
	merges  map[int64][]queue.MergeRecord
	// mergeAt indexes each queue's merge log: a Before → its first record.
	mergeAt map[int64]map[string]int

	surfaces    map[string]queue.Surface    // by entry ID
	runSurfaces map[string]queue.RunSurface // by run ID
	notices     map[int64]queue.Notice
	noticeKeys  map[string]int64
	refs        map[refKey]queue.Ref
	claims      map[claimKey]string         // comment command → the delivery that claimed it
	tunings     map[int64]queue.QueueTuning // by queue ID: autoTune's tuning in force
}

func newDB() *db {
	return &db{
		queues:        map[int64]*queue.Queue{},
		queueIDs:      map[queue.QueueKey]int64{},
		entries:       map[string]*queue.Entry{},
		entryIDs:      map[prKey]string{},
		queueEntries:  map[int64]map[string]*queue.Entry{},
		activeEntries: map[int64]map[string]*queue.Entry{},
		runs:          map[string]*queue.TestRun{},
		queueRuns:     map[int64]map[string]*queue.TestRun{},
		openRuns:      map[int64]map[string]*queue.TestRun{},
		runsBySHA:     map[string]map[string]*queue.TestRun{},
		checks:        map[commitKey]map[checkKey]queue.CheckResult{},
		targets:       map[prKey]queue.Targets{},
		events:        map[int64][]queue.Event{},
		merges:        map[int64][]queue.MergeRecord{},
		mergeAt:       map[int64]map[string]int{},
		surfaces:      map[string]queue.Surface{},
		runSurfaces:   map[string]queue.RunSurface{},
		notices:       map[int64]queue.Notice{},
		noticeKeys:    map[string]int64{},
		refs:          map[refKey]queue.Ref{},
		claims:        map[claimKey]string{},
		tunings:       map[int64]queue.QueueTuning{},
	}
}

// put adds v under k in the set m[outer], creating the set.
func put[K, I comparable, V any](m map[K]map[I]V, outer K, id I, v V) {
	set, ok := m[outer]
	if !ok {
		set = map[I]V{}
		m[outer] = set
	}
	set[id] = v
}

// drop removes id from the set m[outer], deleting an emptied set.
func drop[K, I comparable, V any](m map[K]map[I]V, outer K, id I) {
	if set, ok := m[outer]; ok {
		delete(set, id)
		if len(set) == 0 {
			delete(m, outer)
		}
	}
}

// insertEntry stores e (owned by db from now on) and indexes it.
func (d *db) insertEntry(e *queue.Entry) {
	d.entries[e.ID] = e
	d.entryIDs[prKey{e.QueueID, e.PRNumber}] = e.ID
	put(d.queueEntries, e.QueueID, e.ID, e)
	if e.Active() {
		put(d.activeEntries, e.QueueID, e.ID, e)
	}
}

// removeEntry unindexes and removes the entry with this ID, returning it.
func (d *db) removeEntry(id string) *queue.Entry {
	e, ok := d.entries[id]
	if !ok {
		return nil
	}
	delete(d.entries, id)
	delete(d.entryIDs, prKey{e.QueueID, e.PRNumber})
	drop(d.queueEntries, e.QueueID, id)
	drop(d.activeEntries, e.QueueID, id)
	return e
}

// insertRun stores r (owned by db from now on) and indexes it.
func (d *db) insertRun(r *queue.TestRun) {
	d.runs[r.ID] = r
	put(d.queueRuns, r.QueueID, r.ID, r)
	if !r.Closed {
		put(d.openRuns, r.QueueID, r.ID, r)
	}
	if r.SHA != "" {
		put(d.runsBySHA, r.SHA, r.ID, r)
	}
}

// removeRun unindexes and removes the run with this ID, returning it.
func (d *db) removeRun(id string) *queue.TestRun {
	r, ok := d.runs[id]
	if !ok {
		return nil
	}
	delete(d.runs, id)
	drop(d.queueRuns, r.QueueID, id)
	drop(d.openRuns, r.QueueID, id)
	if r.SHA != "" {
		drop(d.runsBySHA, r.SHA, id)
	}
	return r
}
