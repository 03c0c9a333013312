package queue

import (
	"fmt"
	"testing"
	"time"
)

// TestPollDueForgetsStaleEntries: the per-entry read times of not_ready
// entries do not grow without bound once entries are admitted or end.
func TestPollDueForgetsStaleEntries(t *testing.T) {
	now := t0
	s := NewService(nil, nil, Options{Now: func() time.Time { return now }})
	for i := range maxPolled {
		if !s.pollDue(fmt.Sprintf("old-%d", i)) {
			t.Fatalf("first read of old-%d not due", i)
		}
	}
	if s.pollDue("old-1") {
		t.Error("a read within NotReadyPoll is due again")
	}
	now = now.Add(time.Hour)
	s.pollDue("fresh")
	if n := len(s.lastPolled); n != 1 {
		t.Errorf("%d read times remembered after the sweep, want 1", n)
	}
}
