package browsertest

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mergequeue/mq/queue"
)

// The dashboard shows a queue's autoTune: its bound, the settings in force
// and the configured ones, and the last change with its reason (the choice
// itself is the service's, tested there; here it is stored as the service
// stores it).
func TestDashboardShowsAutoTune(t *testing.T) {
	ctx := tab(t)
	s := startStack(t, "github.com")
	s.mustCall("createQueue", map[string]any{"concurrency": 1, "autoTune": true, "autoTuneMaxRuns": 8})

	step(t, ctx, "open the dashboard", chromedp.Navigate(s.env.URL+"/"))
	loginIfAsked(t, ctx, s)
	waitJS(t, ctx, "autoTune shown before its first change", rowWith("autoTune on", "8 runs at once", "no change yet"), `document.body.innerText`)

	store := s.env.App().Store()
	bg := context.Background()
	q, err := store.GetQueue(bg, queue.QueueKey{Repo: queue.Repo{Host: s.host, Owner: owner, Name: repo}, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	tunings, ok := store.(interface {
		SaveQueueTuning(ctx context.Context, t queue.QueueTuning) error
	})
	if !ok {
		t.Fatalf("%T keeps no tunings", store)
	}
	tuned := queue.TunedValuesOf(q.Settings)
	tuned.Concurrency, tuned.PendingFailureDepth, tuned.CanOptimisticallyMerge = 4, 1, true
	reason := "flake rate rose to 9 %: concurrency 4, depth 1, optimistic merging on"
	if err := tunings.SaveQueueTuning(bg, queue.QueueTuning{QueueID: q.ID, Values: tuned, From: queue.TunedValuesOf(q.Settings),
		Reason: reason, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	ev := queue.QueueTuningEvent(q.ID, queue.ReasonQueueAutoTuned, reason+" (now k=4, batches off, depth 1, optimistic)", time.Now())
	if err := store.AddEvent(bg, &ev); err != nil {
		t.Fatal(err)
	}

	step(t, ctx, "reload the dashboard", chromedp.Navigate(s.env.URL+"/"))
	waitJS(t, ctx, "the settings in force, the configured ones and the change's reason",
		rowWith("autoTune on", "in force: k=4, batches off, depth 1, optimistic", "configured: k=1, batches off, depth 0", reason),
		`document.body.innerText`)
	waitJS(t, ctx, "the change among the recent decisions", rowWith("queue_autotuned", reason), `document.body.innerText`)
	screenshot(t, ctx, "dashboard-autotune.png", true)
}
