//go:build unix

package main

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// killLoop tunes TestKillLoop.
const (
	killLoopPRs      = 12
	killLoopMinKills = 10
	// Once every PR is submitted and the minimum number of kills is
	// reached, kills go on while the queue tests and merges, until
	// killLoopEndedUnderFire entries ended or for killLoopUnderFire at most
	// (a process killed every second or two gets little done, and the
	// queue must also finish undisturbed).
	killLoopEndedUnderFire = 6
	killLoopUnderFire      = 25 * time.Second
	killLoopGapMin         = time.Second // between two kills
	killLoopGapMax         = 4 * time.Second
)

// Twelve PRs flow through a queue testing three at a time, submitted by
// REST, comment and label at random moments, one of them failing CI, CI
// results arriving throughout, while the bot is killed with SIGKILL at
// random moments at least ten times (restarted at once each time). Once
// the queue is idle every invariant holds.
func TestKillLoop(t *testing.T) {
	t.Parallel()
	seed := crashSeed(t)
	plan := rand.New(rand.NewPCG(seed, 0))
	h := newCrashHarness(t, crashOptions{})
	h.createQueue(map[string]any{"concurrency": 3, "stateLabelsEnabled": true})
	o := &crashOutcome{How: map[int]submitMethod{}, Initial: h.mainLength()}

	failing := plan.IntN(killLoopPRs)
	var prs []int
	for i := range killLoopPRs {
		files := map[string]string{fmt.Sprintf("change-%02d.txt", i): "change\n"}
		if i == failing {
			files["FAIL"] = "this change breaks CI\n"
		}
		pr := h.openPR(fmt.Sprintf("change-%02d", i), files)
		prs = append(prs, pr)
		o.How[pr] = submitMethod(i % 3)
		if i == failing {
			o.Failed = append(o.Failed, pr)
		} else {
			o.Merged = append(o.Merged, pr)
		}
	}
	plan.Shuffle(len(prs), func(i, j int) { prs[i], prs[j] = prs[j], prs[i] })
	t.Logf("submission order %v, methods %v, #%d fails CI", prs, o.How, o.Failed[0])

	stopCI := h.paceCI(rand.New(rand.NewPCG(seed, 1)), 100*time.Millisecond, 800*time.Millisecond)
	defer stopCI()

	start := time.Now()
	stopKills := make(chan struct{})
	var killer sync.WaitGroup
	killer.Add(1)
	go func() {
		defer killer.Done()
		rng := rand.New(rand.NewPCG(seed, 2))
		for {
			gap := killLoopGapMin + time.Duration(rng.Int64N(int64(killLoopGapMax-killLoopGapMin)))
			select {
			case <-stopKills:
				return
			case <-time.After(gap): // a random moment, not a wait for an outcome
			}
			h.kill()
		}
	}()
	stopKiller := sync.OnceFunc(func() { close(stopKills); killer.Wait() })
	defer stopKiller()

	for _, pr := range prs {
		time.Sleep(time.Duration(100+plan.IntN(1100)) * time.Millisecond) // a random moment, not a wait for an outcome
		if err := h.submit(pr, o.How[pr]); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("all %d PRs submitted after %s", len(prs), elapsed(start))
	h.waitFor(fmt.Sprintf("%d kills", killLoopMinKills), crashIdleWait, func() bool {
		_, kills := h.counts()
		return kills >= killLoopMinKills
	}, nil)
	ended := 0
	_ = pollUntil(killLoopUnderFire, func() bool { // either way the kills stop
		ended = 0
		for _, pr := range prs {
			if e, ok, err := h.entry(pr); err == nil && ok && e.terminal() {
				ended++
			}
		}
		return ended >= killLoopEndedUnderFire
	})
	stopKiller()
	_, kills := h.counts()
	t.Logf("stopped killing after %d kills at %s; %d of %d entries had ended", kills, elapsed(start), ended, len(prs))
	h.finish(o)
	t.Logf("queue idle and checked after %s", elapsed(start))
}
