package readside

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
)

// MetricsLookback bounds how far back QueueMetrics reads the event log to
// find when an entry concluded in the window was submitted and first
// tested. Entries submitted earlier still count in the gauges, counters and
// test durations, but not in the wait and in-queue durations, which cannot
// be known without their submission.
const MetricsLookback = 7 * 24 * time.Hour

// QueueMetrics are the figures of getMergeQueueMetrics for one queue.
type QueueMetrics struct {
	Queue *queue.Queue
	// Depth counts the active admitted entries; AwaitingMergeability the
	// not_ready ones.
	Depth                int
	AwaitingMergeability int
	// SlotsMain and SlotsBisection count the runs building or in progress.
	SlotsMain      int
	SlotsBisection int
	// Conclusions counts the entries that ended in the window, by terminal
	// state (merged, failed and cancelled are always present).
	Conclusions map[queue.EntryState]int
	// Restarts counts restarts (reasons restarted_*) in the window.
	Restarts int
	// For the entries that ended in the window: submission to first
	// testing, last testing to its result (tests_passed or failed), and
	// submission to the end.
	WaitTimes    []time.Duration
	TestTimes    []time.Duration
	TimesInQueue []time.Duration
	// Flaky are the required checks' failures over FlakyWindow and how many
	// were flakes (FlakyChecks).
	Flaky []FlakyCheck
}

// QueueMetrics computes a queue's current gauges and its figures over the
// last window from the event log.
func (r *Reads) QueueMetrics(ctx context.Context, q *queue.Queue, window time.Duration) (*QueueMetrics, error) {
	m := &QueueMetrics{Queue: q, Conclusions: map[queue.EntryState]int{queue.StateMerged: 0, queue.StateFailed: 0, queue.StateCancelled: 0}}
	active, err := r.store.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return nil, fmt.Errorf("failed to list entries of %s: %w", q.Key, err)
	}
	for _, e := range active {
		switch {
		case e.State == queue.StateNotReady:
			m.AwaitingMergeability++
		case e.Admitted():
			m.Depth++
		}
	}
	runs, err := r.store.ListOpenRuns(ctx, q.ID)
	if err != nil {
		return nil, fmt.Errorf("failed to list runs of %s: %w", q.Key, err)
	}
	for _, run := range runs {
		if run.Status != queue.RunBuilding && run.Status != queue.RunInProgress {
			continue
		}
		if run.Bisection {
			m.SlotsBisection++
		} else {
			m.SlotsMain++
		}
	}
	now := r.now()
	since := now.Add(-window)
	recent, err := r.store.ListEvents(ctx, q.ID, since)
	if err != nil {
		return nil, fmt.Errorf("failed to list events of %s: %w", q.Key, err)
	}
	concluded := map[string]bool{}
	earliest := since
	for _, ev := range recent {
		if strings.HasPrefix(string(ev.Reason), "restarted_") {
			m.Restarts++
		}
		if !ev.To.Terminal() {
			continue
		}
		m.Conclusions[ev.To]++
		if !concluded[ev.EntryID] {
			concluded[ev.EntryID] = true
			e, err := r.store.GetEntryByID(ctx, ev.EntryID)
			if err != nil && !errors.Is(err, queue.ErrNotFound) {
				return nil, fmt.Errorf("failed to load entry %s: %w", ev.EntryID, err)
			}
			if err == nil && e.SubmittedAt.Before(earliest) {
				earliest = e.SubmittedAt
			}
		}
	}
	if m.Flaky, err = r.FlakyChecks(ctx, q); err != nil {
		return nil, err
	}
	if len(concluded) == 0 {
		return m, nil
	}
	earliest = maxTime(earliest, since.Add(-MetricsLookback))
	history := recent
	if earliest.Before(since) {
		if history, err = r.store.ListEvents(ctx, q.ID, earliest); err != nil {
			return nil, fmt.Errorf("failed to list events of %s: %w", q.Key, err)
		}
	}
	m.addDurations(history, concluded, since)
	return m, nil
}

// life tracks one entry through the event log.
type life struct {
	submitted    time.Time // zero when the submission is before the log read
	firstTesting time.Time
	lastTesting  time.Time
	tested       time.Duration // last testing → result; -1 when none
}

// addDurations walks the events oldest first and records, for each entry
// ending at or after since, its wait, test and in-queue durations.
func (m *QueueMetrics) addDurations(events []queue.Event, concluded map[string]bool, since time.Time) {
	lives := map[string]*life{}
	for _, ev := range events {
		if !concluded[ev.EntryID] {
			continue
		}
		l := lives[ev.EntryID]
		if l == nil || (ev.To == queue.StateNotReady && ev.Reason == queue.ReasonSubmitted) {
			l = &life{tested: -1}
			if ev.To == queue.StateNotReady && ev.Reason == queue.ReasonSubmitted {
				l.submitted = ev.At
			}
			lives[ev.EntryID] = l
		}
		switch {
		case ev.To == queue.StateTesting:
			if l.firstTesting.IsZero() {
				l.firstTesting = ev.At
			}
			l.lastTesting = ev.At
		case (ev.To == queue.StateTestsPassed || ev.To == queue.StateFailed) && !l.lastTesting.IsZero() &&
			(ev.From == queue.StateTesting || ev.From == queue.StatePendingFailure):
			l.tested = ev.At.Sub(l.lastTesting)
		}
		if !ev.To.Terminal() {
			continue
		}
		if !ev.At.Before(since) {
			if !l.submitted.IsZero() {
				m.TimesInQueue = append(m.TimesInQueue, ev.At.Sub(l.submitted))
				if !l.firstTesting.IsZero() {
					m.WaitTimes = append(m.WaitTimes, l.firstTesting.Sub(l.submitted))
				}
			}
			if l.tested >= 0 {
				m.TestTimes = append(m.TestTimes, l.tested)
			}
		}
		delete(lives, ev.EntryID) // the next event of this entry starts a new life
	}
}
