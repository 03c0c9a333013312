package githubx

import (
	"testing"
	"time"
)

// The budget tells when its next write may go while a window is full: a
// minute after the write that filled it came back; nothing once it frees.
func TestNextWriteAtWhileTheMinuteIsFull(t *testing.T) {
	t.Parallel()
	clk := newManualClock()
	s := newScheduler(Budget{Concurrent: 10, PointsPerMinute: 900, WritesPerMinute: 1, WritesPerHour: 100,
		Minute: time.Minute, Hour: time.Hour}, clk, nil)
	if at, held := s.nextWriteAt(); held {
		t.Fatalf("an unused budget holds writes back until %s", at)
	}
	u, err := s.acquire(t.Context(), ClassMerge, cost{points: writePoints, write: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if at, held := s.nextWriteAt(); !held || !at.Equal(testNow.Add(time.Minute)) {
		t.Errorf("while the write is in flight: %s, %v; want held until %s at the latest", at, held, testNow.Add(time.Minute))
	}
	clk.Advance(5 * time.Second)
	s.complete(u)
	clk.Advance(15 * time.Second)
	if at, held := s.nextWriteAt(); !held || !at.Equal(testNow.Add(65*time.Second)) {
		t.Errorf("after the write: %s, %v; want held until a minute after it came back (%s)", at, held, testNow.Add(65*time.Second))
	}
	clk.Advance(45 * time.Second)
	if at, held := s.nextWriteAt(); held {
		t.Errorf("once the minute passed: held until %s", at)
	}
}

// A pause GitHub asked for holds writes back until it ends.
func TestNextWriteAtDuringAPause(t *testing.T) {
	t.Parallel()
	clk := newManualClock()
	s := newScheduler(DefaultBudget(), clk, nil)
	s.mu.Lock()
	s.pausedUntil = testNow.Add(40 * time.Second)
	s.mu.Unlock()
	if at, held := s.nextWriteAt(); !held || !at.Equal(testNow.Add(40*time.Second)) {
		t.Errorf("during a pause: %s, %v; want held until its end", at, held)
	}
}
