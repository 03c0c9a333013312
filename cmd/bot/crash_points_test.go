//go:build unix

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue/crashpoint"
)

// crashPointCases are the points TestCrashPoints kills the bot at, and at
// which hit (1 = the first). A new point is one line here.
var crashPointCases = []struct {
	point string
	hit   int
	// paused submits the PRs to a paused queue, resumed after the kill:
	// they wait not ready long enough to get an explaining status comment
	// (a PR that goes through without a hitch gets none).
	paused bool
}{
	{crashpoint.RunIntentRecorded, 1, false},
	{crashpoint.ScratchRefCreated, 1, false},
	{crashpoint.ScratchRefCreated, 2, false}, // the second PR's run, built on the first's
	{crashpoint.MergeApplied, 1, false},
	{crashpoint.MergeApplied, 2, false},
	{crashpoint.CommentPosted, 1, true},
}

// crashSeed is the seed of a randomized test: $MQ_CRASH_SEED, or a fresh
// one, logged so that a failure can be replayed (the kill moments still
// depend on timing).
func crashSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("MQ_CRASH_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("MQ_CRASH_SEED=%q: %v", v, err)
		}
		seed = n
	}
	t.Logf("seed %d (replay with MQ_CRASH_SEED=%d)", seed, seed)
	return seed
}

// For each named crash point: the bot dies by SIGKILL right there while
// three PRs (submitted by REST, comment and label) are tested as a chain;
// restarted without the point, the queue ends with every invariant
// holding.
func TestCrashPoints(t *testing.T) {
	t.Parallel()
	for _, tc := range crashPointCases {
		spec := fmt.Sprintf("%s@%d", tc.point, tc.hit)
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			seed := crashSeed(t)
			h := newCrashHarness(t, crashOptions{Crashpoint: spec})
			h.createQueue(map[string]any{"concurrency": 2, "stateLabelsEnabled": true})
			if tc.paused {
				h.setQueueState("paused")
			}
			o := &crashOutcome{How: map[int]submitMethod{}, Initial: h.mainLength()}
			for i, how := range []submitMethod{byREST, byComment, byLabel} {
				pr := h.openPR(fmt.Sprintf("change-%d", i), map[string]string{fmt.Sprintf("change-%d.txt", i): "change\n"})
				o.Merged, o.How[pr] = append(o.Merged, pr), how
			}
			stopCI := h.paceCI(rand.New(rand.NewPCG(seed, 1)), 50*time.Millisecond, 400*time.Millisecond)
			defer stopCI()
			for _, pr := range o.Merged {
				if err := h.submit(pr, o.How[pr]); err != nil {
					t.Fatal(err)
				}
			}
			want := fmt.Sprintf("%s hit %d", tc.point, tc.hit)
			h.waitFor("crash point "+want+" to kill the bot", crashWait, func() bool {
				for _, e := range h.exitsSoFar() {
					if e.Crashpoint == want && e.Signal == syscall.SIGKILL && !e.ByHarness {
						return true
					}
				}
				return false
			}, func() string {
				return fmt.Sprintf("the point is never reached (is crashpoint.Hit(%q) in the code, on this path?); exits: %v", tc.point, h.exitsSoFar())
			})
			if tc.paused {
				h.setQueueState("running")
			}
			h.finish(o)
		})
	}
}

// mainLength is the number of commits on main's first-parent history.
func (h *crashHarness) mainLength() int {
	h.t.Helper()
	landed, err := h.fake.Landed(crashRepoOwner, crashRepoName, crashBranch)
	if err != nil {
		h.t.Fatal(err)
	}
	return len(landed)
}
