package api

import (
	"sync"
	"time"

	"github.com/mergequeue/mq/queue"
)

// runKey is what a forked run credential vouches for: run id, PR and head
// SHA in a repository (folded: GitHub compares names case-insensitively).
type runKey struct {
	repo  queue.Repo
	runID int64
	pr    int
	sha   string
}

// verdict is GitHub's last answer about a runKey: nil (confirmed) or the
// refusal, reused until until.
type verdict struct {
	err   error
	until time.Time
}

// runVerdicts remembers GitHub's answers about forked run credentials
// briefly, so that repeated uploads of one CI run cost one confirmation.
// At most max answers are kept; when full, expired ones are dropped, and
// if none has expired the new answer is not kept. Safe for concurrent
// use.
type runVerdicts struct {
	confirmed, refused time.Duration
	max                int

	mu sync.Mutex
	m  map[runKey]verdict
}

func newRunVerdicts(confirmed, refused time.Duration, max int) *runVerdicts {
	return &runVerdicts{confirmed: confirmed, refused: refused, max: max, m: map[runKey]verdict{}}
}

// get returns the answer kept for k at now, if there is one (found).
func (v *runVerdicts) get(k runKey, now time.Time) (found bool, err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	got, ok := v.m[k]
	if !ok || !now.Before(got.until) {
		return false, nil
	}
	return true, got.err
}

// put keeps GitHub's answer about k from now: a confirmation (nil) for the
// confirmed duration, a refusal for the refused one.
func (v *runVerdicts) put(k runKey, err error, now time.Time) {
	ttl := v.confirmed
	if err != nil {
		ttl = v.refused
	}
	if ttl <= 0 {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.m[k]; !ok && len(v.m) >= v.max {
		for old, got := range v.m {
			if !now.Before(got.until) {
				delete(v.m, old)
			}
		}
		if len(v.m) >= v.max {
			return
		}
	}
	v.m[k] = verdict{err: err, until: now.Add(ttl)}
}
