package service

import (
	"maps"
	"sync"
	"time"

	"github.com/mergequeue/mq/queue/engine"
)

// The Service keeps these schedules and caches. None is an engine input the store lacks:
// each is a copy of GitHub's or the store's state, bounded, and losing it
// (a restart) costs only a read.

// readSchedule remembers, per entry, when its PR was last read or heard
// of from GitHub, so that it is read again only every so often: the
// not_ready polls (every NotReadyPoll) and the reconciler's re-reads of
// PRs nothing was heard of (every PRRecheckEvery) are two of them. An entry
// never heard of since the process started is due at once: a process that
// starts (or takes a queue over) never trusts the facts it finds stored.
// Entries not heard of for ten periods are swept once more than maxPolled
// are remembered.
type readSchedule struct {
	mu    sync.Mutex
	every time.Duration
	last  map[string]time.Time
}

// maxPolled is the number of remembered reads above which stale ones are
// swept.
const maxPolled = 1024

func newReadSchedule(every time.Duration) *readSchedule {
	return &readSchedule{every: every, last: map[string]time.Time{}}
}

// due reports whether the entry's PR is due for a read at now.
func (r *readSchedule) due(entryID string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	at, ok := r.last[entryID]
	return !ok || now.Sub(at) >= r.every
}

// take reports whether the entry's PR is due for a read at now and, if so,
// records the read.
func (r *readSchedule) take(entryID string, now time.Time) bool {
	if !r.due(entryID, now) {
		return false
	}
	r.heardOf(entryID, now)
	return true
}

// heardOf records that GitHub told of the entry's PR at now.
func (r *readSchedule) heardOf(entryID string, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last[entryID] = now
	if len(r.last) > maxPolled {
		for id, at := range r.last {
			if now.Sub(at) > 10*r.every {
				delete(r.last, id)
			}
		}
	}
}

// forget drops an entry that ended.
func (r *readSchedule) forget(entryID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.last, entryID)
}

// protectionCache keeps each queue's branch-protection required checks for
// one reconcile interval, so a burst of test runs reads them once and a
// change made on GitHub applies within the interval. One entry per queue.
type protectionCache struct {
	mu  sync.Mutex
	ttl time.Duration
	by  map[int64]protectionRead
}

// protectionRead is a branch protection's required checks as read at a
// time.
type protectionRead struct {
	checks []string
	at     time.Time
}

func newProtectionCache(ttl time.Duration) *protectionCache {
	return &protectionCache{ttl: ttl, by: map[int64]protectionRead{}}
}

// get returns the queue's required checks if read within the interval.
func (c *protectionCache) get(queueID int64, now time.Time) ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.by[queueID]
	if !ok || now.Sub(r.at) >= c.ttl {
		return nil, false
	}
	return append([]string{}, r.checks...), true
}

func (c *protectionCache) put(queueID int64, checks []string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.by[queueID] = protectionRead{checks: append([]string{}, checks...), at: now}
}

// targetCache keeps the indexed impacted targets each queue's last
// snapshot used (parallel mode), so a step does not rebuild them; each
// snapshot replaces its queue's set, so the cache holds no more than the
// queue's active entries and recent merges.
type targetCache struct {
	mu sync.Mutex
	by map[int64]map[int]*engine.TargetSet // queue → PR → targets (nil = none uploaded)
}

func newTargetCache() *targetCache { return &targetCache{by: map[int64]map[int]*engine.TargetSet{}} }

// lookup returns a PR's cached targets.
func (c *targetCache) lookup(queueID int64, pr int) (*engine.TargetSet, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ts, ok := c.by[queueID][pr]
	return ts, ok
}

// replace makes a copy of set the queue's cache: set is the snapshot's,
// which the engine reads without the cache's lock while forget deletes
// from the cache's map (the sets themselves are never modified).
func (c *targetCache) replace(queueID int64, set map[int]*engine.TargetSet) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.by[queueID] = maps.Clone(set)
}

// forget drops a PR's targets (uploaded again) or, with pr < 0, a queue's.
func (c *targetCache) forget(queueID int64, pr int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if pr < 0 {
		delete(c.by, queueID)
		return
	}
	delete(c.by[queueID], pr)
}

// headCache keeps each queue's target-branch head as last learned: read
// from GitHub, set by the queue's own merge, or moved by a push webhook
// that follows on from it. A head older than one reconcile interval is
// read again, so a lost push webhook delays the queue by at most that; a
// merge reads the head fresh regardless (tryMerge). One entry per queue.
type headCache struct {
	mu  sync.Mutex
	ttl time.Duration
	by  map[int64]headRead
}

// headRead is a target head as learned at a time.
type headRead struct {
	sha string
	at  time.Time
}

func newHeadCache(ttl time.Duration) *headCache {
	return &headCache{ttl: ttl, by: map[int64]headRead{}}
}

// get returns the queue's head if learned within the interval.
func (c *headCache) get(queueID int64, now time.Time) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.by[queueID]
	if !ok || r.sha == "" || now.Sub(r.at) >= c.ttl {
		return "", false
	}
	return r.sha, true
}

// put records the head learned now.
func (c *headCache) put(queueID int64, sha string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.by[queueID] = headRead{sha: sha, at: now}
}

// pushed follows a push from before to after: when before is the head
// known, after is the head now; anything else (a push we cannot place)
// forgets the head, to be read again.
func (c *headCache) pushed(queueID int64, before, after string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.by[queueID]; ok && before != "" && r.sha == before {
		c.by[queueID] = headRead{sha: after, at: now}
		return
	}
	if r, ok := c.by[queueID]; ok && r.sha == after {
		return // our own merge, told again
	}
	delete(c.by, queueID)
}
