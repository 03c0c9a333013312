//go:build unix

package crashpoint

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// helperScript, in a child test process, is the comma-separated list of
// points TestHelperHits hits in order.
const helperScript = "CRASHPOINT_TEST_SCRIPT"

// TestHelperHits is the child process of TestHitKillsAtTheNamedHit: it
// hits the points of its script in order, writing a line (unbuffered)
// before and after each, and one from a deferred function.
func TestHelperHits(t *testing.T) {
	script := os.Getenv(helperScript)
	if script == "" {
		t.Skip("child process of TestHitKillsAtTheNamedHit")
	}
	defer os.Stdout.WriteString("deferred ran\n")
	counts := map[string]int{}
	for _, name := range strings.Split(script, ",") {
		counts[name]++
		_, _ = fmt.Fprintf(os.Stdout, "before %s %d\n", name, counts[name])
		Hit(name)
		_, _ = fmt.Fprintf(os.Stdout, "after %s %d\n", name, counts[name])
	}
}

// The process dies by SIGKILL exactly at the hit MQ_CRASHPOINT names, with
// no deferred function run; a point not named never kills.
func TestHitKillsAtTheNamedHit(t *testing.T) {
	if os.Getenv(helperScript) != "" {
		t.Skip("in the child process")
	}
	t.Parallel()
	const script = "a,b,a,b,a,a"
	tests := []struct {
		spec string
		// lastLine is the last line the child wrote: the "before" line of
		// the fatal hit, or "deferred ran" when it survives.
		lastLine string
		killed   string // "name hit N" in the stderr line, "" = survives
	}{
		{spec: "", lastLine: "deferred ran"},
		{spec: "c", lastLine: "deferred ran"},
		{spec: "a@5", lastLine: "deferred ran"},
		{spec: "a", lastLine: "before a 1", killed: "a hit 1"},
		{spec: "a@3", lastLine: "before a 3", killed: "a hit 3"},
		{spec: "c,b@2", lastLine: "before b 2", killed: "b hit 2"},
		{spec: "a@4,b@2", lastLine: "before b 2", killed: "b hit 2"},
	}
	for _, tc := range tests {
		name := strings.ReplaceAll(tc.spec, ",", "+")
		if name == "" {
			name = "empty"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHits$", "-test.count=1", "-test.v=false")
			cmd.Env = append(withoutEnv(os.Environ(), Env), helperScript+"="+script, Env+"="+tc.spec)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok {
				t.Fatalf("no wait status: %v", err)
			}
			var lines []string
			for _, l := range strings.Split(stdout.String(), "\n") {
				if strings.HasPrefix(l, "before ") || strings.HasPrefix(l, "after ") || l == "deferred ran" {
					lines = append(lines, l)
				}
			}
			last := ""
			if len(lines) > 0 {
				last = lines[len(lines)-1]
			}
			if last != tc.lastLine {
				t.Errorf("last line %q, want %q; stdout:\n%s", last, tc.lastLine, stdout.String())
			}
			if tc.killed == "" {
				if err != nil {
					t.Errorf("child failed: %v; stderr:\n%s", err, stderr.String())
				}
				return
			}
			if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Errorf("child ended with %v, want death by SIGKILL", cmd.ProcessState)
			}
			if want := "crashpoint: " + tc.killed + ": killing the process (SIGKILL)"; !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
			}
		})
	}
}

// A malformed MQ_CRASHPOINT stops the process at start-up.
func TestMalformedSpecPanicsAtStart(t *testing.T) {
	if os.Getenv(helperScript) != "" {
		t.Skip("in the child process")
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHits$", "-test.count=1")
	cmd.Env = append(withoutEnv(os.Environ(), Env), helperScript+"=a", Env+"=a@0")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "hit count") || strings.Contains(string(out), "before a") {
		t.Errorf("child with %s=a@0: %v, output:\n%s", Env, err, out)
	}
}

func withoutEnv(env []string, key string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}
