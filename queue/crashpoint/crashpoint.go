// Package crashpoint kills the process at named points of the code, so that
// crash tests can stop the merge queue exactly where its side effects on
// GitHub and its durable state disagree, and prove that a restart repairs
// the difference.
//
// The environment variable MQ_CRASHPOINT (read once, when the process
// starts) names the points to crash at, comma-separated; each is `name`
// (the first hit) or `name@N` (the N-th hit, N ≥ 1, counted per name in
// this process). For example:
//
//	MQ_CRASHPOINT=scratch-ref-created@2,merge-applied bot serve --config cfg.yml
//
// Guarantees:
//   - Unset or empty, Hit does nothing: it is one load and one branch, with
//     no lock, allocation or system call.
//   - Set, the hit that a point names sends SIGKILL to the process itself,
//     as `kill -9` would: no deferred function runs, no buffer is flushed,
//     no file is closed, and Hit does not return. The only thing done
//     before is one unbuffered line on standard error,
//     "crashpoint: <name> hit <N>: killing the process (SIGKILL)", so that a
//     harness can tell which point fired.
//   - Hits are counted atomically: concurrent callers of one name never
//     share a count, and exactly one of them crashes.
//   - A malformed MQ_CRASHPOINT makes the process panic at start-up, so
//     that a crash test never runs without the crash it asked for.
//
// The named points:
//
//	run-intent-recorded  queue/service: a test run is recorded "building"
//	                     with its branches, before they are built.
//	scratch-ref-created  githubx.BuildBranch: the scratch ref
//	                     mq-temp/<uuid> exists on GitHub; only its intent
//	                     record names it.
//	merge-applied        queue/service: GitHub merged the PR, before the
//	                     store commit records the merge.
//	comment-posted       queue/service: the sticky status comment was
//	                     written on the PR, before its id is recorded.
//	notice-posted        queue/service: a notice's comment (a reply, a
//	                     mention) was posted, before it is recorded done.
package crashpoint

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Env is the environment variable naming the points to crash at.
const Env = "MQ_CRASHPOINT"

// The named points (see the package documentation for where each one is).
const (
	RunIntentRecorded = "run-intent-recorded"
	ScratchRefCreated = "scratch-ref-created"
	MergeApplied      = "merge-applied"
	CommentPosted     = "comment-posted"
	NoticePosted      = "notice-posted"
)

// Names lists every named point, in the order a queue run meets them.
var Names = []string{RunIntentRecorded, ScratchRefCreated, MergeApplied, CommentPosted, NoticePosted}

// point is one armed point: the hit to crash at and the hits so far.
type point struct {
	at   int64
	hits atomic.Int64
}

// armed is nil unless MQ_CRASHPOINT names at least one point; it is built
// once, before main, and only read afterwards.
var armed map[string]*point

func init() {
	p, err := parse(os.Getenv(Env))
	if err != nil {
		panic(err)
	}
	armed = p
}

// Hit marks that the process reached point name; it kills the process when
// MQ_CRASHPOINT names this hit of it, and does nothing otherwise.
func Hit(name string) {
	if armed == nil {
		return
	}
	hit(name)
}

func hit(name string) {
	p := armed[name]
	if p == nil {
		return
	}
	if n := p.hits.Add(1); n == p.at {
		kill(name, n)
	}
}

// kill sends SIGKILL to this process and never returns.
func kill(name string, n int64) {
	_, _ = fmt.Fprintf(os.Stderr, "crashpoint: %s hit %d: killing the process (SIGKILL)\n", name, n)
	self, err := os.FindProcess(os.Getpid())
	if err == nil {
		err = self.Kill() // SIGKILL on Unix
	}
	if err != nil { // cannot happen on Unix; still never return
		_, _ = fmt.Fprintf(os.Stderr, "crashpoint: SIGKILL failed (%v): exiting with 137\n", err)
		os.Exit(137)
	}
	for {
		time.Sleep(time.Hour) // the signal is on its way; never return
	}
}

// parse reads an MQ_CRASHPOINT value; "" (or only separators) arms nothing.
// A name listed twice crashes at its earliest hit.
func parse(spec string) (map[string]*point, error) {
	var out map[string]*point
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, count, hasCount := strings.Cut(item, "@")
		name = strings.TrimSpace(name)
		at := int64(1)
		if hasCount {
			n, err := strconv.ParseInt(strings.TrimSpace(count), 10, 64)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("crashpoint: %s=%q: hit count of %q must be an integer ≥ 1", Env, spec, name)
			}
			at = n
		}
		if name == "" {
			return nil, fmt.Errorf("crashpoint: %s=%q: empty point name in %q", Env, spec, item)
		}
		if out == nil {
			out = map[string]*point{}
		}
		if p, ok := out[name]; !ok || at < p.at {
			out[name] = &point{at: at}
		}
	}
	return out, nil
}
