//go:build unix

package githubx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A git cut off by its context takes the processes it started with it: a
// push's helpers (git-remote-https, send-pack) left running after the
// lease's write window closed could publish a branch afterwards, with no
// record of it. Here git runs an alias whose shell starts a long sleep
// and notes its process ID.
func TestACutOffGitTakesItsHelpersWithIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "helper.pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := runGit(ctx, gitRun{timeout: time.Minute}, "-c", "alias.hang=!sleep 300 & echo $! > "+pidFile+"; wait", "hang")
		done <- err
	}()
	var pid int
	deadline := time.Now().Add(10 * time.Second)
	for pid == 0 {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			t.Fatal("the alias never started its helper")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("runGit cut off: %v, want the context's error", err)
	}
	for !gone(pid) {
		if time.Now().After(deadline.Add(5 * time.Second)) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("git's helper (pid %d) still runs after git was cut off", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// gone reports whether process pid has ended (a zombie, ended but not yet
// reaped by whoever adopted it, counts).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil { // no /proc (not Linux): alive, as kill said
		return false
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}
