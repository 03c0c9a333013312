package app

import (
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Each of autoTune's choices is measured in mq_autotune_choice_seconds,
// by outcome, on the process's registry.
func TestAutoTuneChoicesAreMeasured(t *testing.T) {
	t.Parallel()
	m := newMetrics()
	key := queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "o", Name: "r"}, Branch: "main"}
	m.autoTune.choice(key, 1500*time.Millisecond, false)
	m.autoTune.choice(key, 2*time.Minute, true)
	families, err := m.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	sums := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "mq_autotune_choice_seconds" {
			continue
		}
		for _, mt := range f.GetMetric() {
			for _, l := range mt.GetLabel() {
				got[l.GetValue()] += mt.GetHistogram().GetSampleCount()
				sums[l.GetValue()] += mt.GetHistogram().GetSampleSum()
			}
		}
	}
	if got["chosen"] != 1 || got["abandoned"] != 1 || sums["chosen"] != 1.5 || sums["abandoned"] != 120 {
		t.Fatalf("mq_autotune_choice_seconds counts %v, sums %v; want one chosen of 1.5 s and one abandoned of 120 s", got, sums)
	}
}
