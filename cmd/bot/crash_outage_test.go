//go:build unix

package main

import (
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// defaultOutage is how long TestGitHubOutageAcrossRestart keeps GitHub
// down; the bot is killed half-way. Every retry budget of the bot is
// shorter than half of it (a GitHub request: 3 tries within 2 s; a
// webhook's handler: 5 attempts within 30 s; the queue and its surfaces:
// every reconcile interval; the supervisor: 5 s), so the comment posted as
// the outage begins has used up its handler's attempts before the kill.
// $MQ_CRASH_OUTAGE=70s keeps that for local runs; CI keeps the 2 minutes of
// the acceptance. (Below about 65 s the restart retries the delivery while
// it still has attempts left, which tests less.)
const defaultOutage = 2 * time.Minute

// GitHub answers 503 to every API call for two minutes while PRs are in
// flight and CI results keep arriving; a PR is submitted by comment during
// the outage, another one by REST (refused until GitHub is back, so
// retried as a user would), and the bot is killed half-way and restarted
// (it cannot start while GitHub is down, so the supervisor keeps trying).
// Once GitHub is back every surface catches up.
func TestGitHubOutageAcrossRestart(t *testing.T) {
	t.Parallel()
	outage := defaultOutage
	if v := os.Getenv("MQ_CRASH_OUTAGE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("MQ_CRASH_OUTAGE=%q: %v", v, err)
		}
		outage = d
	}
	seed := crashSeed(t)
	h := newCrashHarness(t, crashOptions{})
	h.createQueue(map[string]any{"concurrency": 2, "stateLabelsEnabled": true})
	o := &crashOutcome{How: map[int]submitMethod{}, Initial: h.mainLength()}
	open := func(branch string, fail bool, how submitMethod) int {
		files := map[string]string{branch + ".txt": "change\n"}
		if fail {
			files["FAIL"] = "this change breaks CI\n"
		}
		pr := h.openPR(branch, files)
		o.How[pr] = how
		if fail {
			o.Failed = append(o.Failed, pr)
		} else {
			o.Merged = append(o.Merged, pr)
		}
		return pr
	}
	before := []int{open("one", false, byREST), open("two", false, byComment), open("three", true, byLabel)}
	during := []int{open("four", false, byComment), open("five", false, byREST)}

	stopCI := h.paceCI(rand.New(rand.NewPCG(seed, 1)), 200*time.Millisecond, 1500*time.Millisecond)
	defer stopCI()
	for _, pr := range before {
		if err := h.submit(pr, o.How[pr]); err != nil {
			t.Fatal(err)
		}
	}
	// The queue is busy and every submission made so far is in it: what is
	// lost or late afterwards is the outage's doing.
	h.waitFor("#"+itoa(before[0])+" to be tested and the others queued", crashWait, func() bool {
		for _, pr := range before {
			if _, ok, err := h.entry(pr); err != nil || !ok {
				return false
			}
		}
		e, ok, err := h.entry(before[0])
		return err == nil && ok && e.State != "not_ready" && e.State != "pending"
	}, nil)

	start := time.Now()
	h.fake.InjectFault(fakegithub.Fault{Status: http.StatusServiceUnavailable, Times: -1})
	t.Logf("GitHub down for %v", outage)
	if err := h.submit(during[0], byComment); err != nil { // webhooks still flow: acknowledged
		t.Fatal(err)
	}
	var rest sync.WaitGroup
	var restErr error
	rest.Add(1)
	go func() { // refused while GitHub is down: the user retries
		defer rest.Done()
		restErr = h.submitUntil(during[1], byREST, outage+crashWait)
	}()
	// The goroutine logs: wait for it even when the test stops early.
	defer rest.Wait()

	time.Sleep(time.Until(start.Add(outage / 2))) // the scenario's schedule, not a wait for an outcome
	if !h.kill() {
		t.Fatalf("no bot process to kill half-way through the outage; exits: %v", h.exitsSoFar())
	}
	t.Logf("bot killed %s into the outage", elapsed(start))
	time.Sleep(time.Until(start.Add(outage))) // the scenario's schedule
	h.fake.ClearFaults()
	t.Logf("GitHub back after %s", elapsed(start))
	rest.Wait()
	if restErr != nil {
		t.Fatal(restErr)
	}
	h.finish(o)
	t.Logf("every surface checked %s after the outage began", elapsed(start))
}

func itoa(n int) string { return strconv.Itoa(n) }
