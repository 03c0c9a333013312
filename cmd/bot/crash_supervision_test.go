//go:build unix

package main

import (
	"syscall"
	"testing"
)

// The harness itself: a killed bot dies by SIGKILL, is restarted on the
// same port and database by the supervisor, and stops cleanly on SIGTERM.
func TestCrashHarnessSupervision(t *testing.T) {
	t.Parallel()
	h := newCrashHarness(t, crashOptions{})
	h.createQueue(map[string]any{"concurrency": 1})
	h.restart()
	if starts, kills := h.counts(); starts != 2 || kills != 1 {
		t.Errorf("after one restart: %d starts and %d kills, want 2 and 1", starts, kills)
	}
	exits := h.exitsSoFar()
	if len(exits) != 1 || exits[0].Signal != syscall.SIGKILL || !exits[0].ByHarness || exits[0].Crashpoint != "" {
		t.Errorf("exits after one restart: %v, want one SIGKILL sent by the harness", exits)
	}
	// The queue made by the first process is in the database the second
	// one serves.
	if status, out, err := h.call("getQueue", map[string]any{"repo": repoJSON(), "targetBranch": crashBranch}); err != nil || status != 200 {
		t.Errorf("getQueue after the restart: %d %s %v", status, out, err)
	}
	if err := h.stop(); err != nil {
		t.Errorf("graceful stop: %v", err)
	}
	if exits := h.exitsSoFar(); len(exits) != 2 || exits[1].Signal != 0 || exits[1].Code != 0 {
		t.Errorf("exits after stop: %v, want the second to exit 0", exits)
	}
}
