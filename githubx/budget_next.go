package githubx

import (
	"time"

	"github.com/mergequeue/mq/queue"
)

var _ queue.WriteBudget = (*Client)(nil)

// NextWriteAt tells whether repo's installation's write budget holds
// writes back now and, if so, when the next write may be sent: the end of
// a pause GitHub asked for, or the moment a full window (per minute, per
// hour) frees a place; a window full of writes still in flight frees one a
// window's length from now at the latest. An installation not used yet
// holds nothing back.
func (c *Client) NextWriteAt(repo queue.Repo) (time.Time, bool) {
	c.mu.Lock()
	id, ok := c.installations[repoKey(repo)]
	b := c.budgets[id]
	c.mu.Unlock()
	if !ok || b == nil {
		return time.Time{}, false
	}
	return b.nextWriteAt()
}

// nextWriteAt is NextWriteAt for this installation.
func (s *scheduler) nextWriteAt() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	if now.Before(s.pausedUntil) {
		return s.pausedUntil, true
	}
	u := s.usageLocked(now)
	minuteFull, hourFull := u.writesMinute >= s.lim.WritesPerMinute, u.writesHour >= s.lim.WritesPerHour
	if !minuteFull && !hourFull {
		return time.Time{}, false
	}
	at := u.writesFreeAt(s.lim)
	switch {
	case hourFull && (at.IsZero() || u.hourFreeAt.IsZero()):
		at = later(at, now.Add(s.lim.Hour)) // writes in flight fill the hour
	case minuteFull && (at.IsZero() || u.minuteFreeAt.IsZero()):
		at = later(at, now.Add(s.lim.Minute))
	}
	return at, true
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
