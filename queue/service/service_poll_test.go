package service

import (
	"fmt"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue/engine"
)

// TestPollDueForgetsStaleEntries: the per-entry read times of not_ready
// entries do not grow without bound once entries are admitted or end.
func TestPollDueForgetsStaleEntries(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	p := newReadSchedule(engine.NotReadyPoll)
	for i := range maxPolled {
		if !p.take(fmt.Sprintf("old-%d", i), now) {
			t.Fatalf("first read of old-%d not due", i)
		}
	}
	if p.take("old-1", now) {
		t.Error("a read within NotReadyPoll is due again")
	}
	now = now.Add(time.Hour)
	p.take("fresh", now)
	if n := len(p.last); n != 1 {
		t.Errorf("%d read times remembered after the sweep, want 1", n)
	}
}
