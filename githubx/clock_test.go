package githubx

import (
	"sort"
	"sync"
	"time"
)

// autoClock is a budget clock for tests that run one request at a time:
// a timer fires at once, moving the clock forward by its delay, which is
// recorded with the retry sleeps.
type autoClock struct {
	mu  sync.Mutex
	now time.Time
	sl  *sleeps
}

func (c *autoClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *autoClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.sl.mu.Lock()
	c.sl.d = append(c.sl.d, d)
	c.sl.mu.Unlock()
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	go f()
	return func() bool { return false }
}

// manualClock is a budget clock a test moves with Advance; timers fire
// when it passes them, in order.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
}

type manualTimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func newManualClock() *manualClock { return &manualClock{now: testNow} }

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// Advance moves the clock by d, firing (synchronously, in order) every
// timer it passes.
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
		var due *manualTimer
		for i, t := range c.timers {
			if t.stopped {
				continue
			}
			if !t.at.After(end) {
				due = t
				c.timers = append(c.timers[:i], c.timers[i+1:]...)
			}
			break
		}
		if due == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		if due.at.After(c.now) {
			c.now = due.at
		}
		due.stopped = true
		c.mu.Unlock()
		due.f()
	}
}
