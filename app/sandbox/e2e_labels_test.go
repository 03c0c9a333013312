package sandbox

import (
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue"
)

func (h *harness) labels(pr int) map[string]bool {
	h.t.Helper()
	p, err := h.env.Fake.PR(owner, repo, pr)
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]bool{}
	for _, l := range p.Labels {
		out[l.GetName()] = true
	}
	return out
}

// Adding the enqueue label submits; the bot removes it when the entry ends,
// and with state labels on the PR shows one state label at a time.
func TestEnqueueLabelAndStateLabels(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueueWith(func(s *queue.Settings) { s.StateLabelsEnabled = true })
	if err := h.env.Fake.SetPermission(owner, repo, "alice", "write"); err != nil {
		t.Fatal(err)
	}
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	if err := h.env.Fake.AddLabel(owner, repo, p1, "alice", "merge-queue"); err != nil {
		t.Fatal(err)
	}
	h.waitState(p1, "merged")
	h.waitFor("the labels to settle", func() bool {
		l := h.labels(p1)
		return l["mq:merged"] && !l["merge-queue"]
	}, func() string { return "labels: " + keys(h.labels(p1)) })
	for name := range h.labels(p1) {
		if name != "mq:merged" {
			t.Errorf("PR keeps label %q; want only mq:merged", name)
		}
	}
}

func keys(m map[string]bool) string {
	out := ""
	for k := range m {
		out += k + " "
	}
	return out
}
