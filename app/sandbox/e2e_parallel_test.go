package sandbox

import (
	"context"
	"strings"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue"
)

// setTargets uploads a PR's impacted targets for its current head.
func (h *harness) setTargets(pr int, all bool, names ...string) {
	h.t.Helper()
	p, err := h.env.Fake.PR(owner, repo, pr)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.env.App().Service().SetImpactedTargets(context.Background(), queue.TargetsUpdate{Key: mainKey, PRNumber: pr,
		SHA: p.GetHead().GetSHA(), All: all, List: names}); err != nil {
		h.t.Fatal(err)
	}
}

// Parallel mode: two independent PRs test side by side without each other,
// a third depending on both is tested with both; all merge and every path
// each run changed lands as tested.
func TestParallelModeDependencies(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.env.Fake.SetCIHold(true)
	h.createQueueWith(func(s *queue.Settings) { s.Mode, s.Concurrency = queue.ModeParallel, 3 })
	pa := h.openPR("svc-a", map[string]string{"a/main.go": "a\n"})
	pb := h.openPR("svc-b", map[string]string{"b/main.go": "b\n"})
	pc := h.openPR("both", map[string]string{"shared.go": "ab\n"})
	for _, pr := range []int{pa, pb, pc} {
		h.submit(pr)
	}
	h.waitFor("#1 to wait for its targets", func() bool {
		s, ok := h.entry(pa)
		return ok && s.State == "not_ready" && strings.Contains(s.StateReasonDetail, "impacted targets")
	}, nil)
	h.setTargets(pa, false, "//a")
	h.setTargets(pb, false, "//b")
	h.setTargets(pc, false, "//a", "//b")
	for _, pr := range []int{pa, pb, pc} {
		h.waitState(pr, "testing")
	}
	files := func(pr int) map[string]string {
		s, _ := h.entry(pr)
		for _, b := range h.env.Fake.Branches(owner, repo) {
			if strings.HasSuffix(b, s.TestRunID) {
				fs, err := h.env.Fake.Files(owner, repo, b)
				if err != nil {
					t.Fatal(err)
				}
				return fs
			}
		}
		t.Fatalf("no test branch for #%d (run %s)", pr, s.TestRunID)
		return nil
	}
	fa, fb, fc := files(pa), files(pb), files(pc)
	if _, ok := fa["b/main.go"]; ok {
		t.Errorf("#%d was tested with the independent #%d", pa, pb)
	}
	if _, ok := fb["a/main.go"]; ok {
		t.Errorf("#%d was tested with the independent #%d", pb, pa)
	}
	if _, okA := fc["a/main.go"]; !okA {
		t.Errorf("#%d was tested without its dependency #%d", pc, pa)
	}
	if _, okB := fc["b/main.go"]; !okB {
		t.Errorf("#%d was tested without its dependency #%d", pc, pb)
	}
	h.env.Fake.SetCIHold(false)
	h.env.Fake.ReleaseCI()
	for _, pr := range []int{pa, pb, pc} {
		h.waitState(pr, "merged")
	}
	q, _, err := h.env.App().Reads().GetQueue(context.Background(), mainKey)
	if err != nil || q.State != queue.QueueRunning {
		t.Errorf("queue state %v (%s), want running: landing checks must pass", q.State, q.PausedReason)
	}
}
