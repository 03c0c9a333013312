package sandbox

import (
	"fmt"
	"testing"
)

// BenchmarkQueueLoopback runs b.N pull requests through the whole product
// on loopback: REST submissions, the fake GitHub on real git with its
// simulated CI answering at once, webhooks, the engine at concurrency 4
// and SQLite, until every one is merged. It reports merges per second and
// the GitHub API calls the queue made per merged PR.
//
//	go test ./app/sandbox -run XXX -bench QueueLoopback -benchtime 40x
func BenchmarkQueueLoopback(b *testing.B) {
	h := newHarnessWith(b, Options{})
	h.createQueue(4)
	prs := make([]int, b.N)
	for i := range prs {
		prs[i] = h.openPR(fmt.Sprintf("bench-%d", i), map[string]string{fmt.Sprintf("bench/%d.txt", i): "x\n"})
	}
	before := totalCalls(h)
	b.ResetTimer()
	for _, pr := range prs {
		h.submit(pr)
	}
	for _, pr := range prs {
		h.waitState(pr, "merged")
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "merges/s")
	b.ReportMetric(float64(totalCalls(h)-before)/float64(b.N), "github-calls/merge")
}

func totalCalls(h *harness) int {
	n := 0
	for _, c := range h.env.Fake.CallCounts() {
		n += c
	}
	return n
}
