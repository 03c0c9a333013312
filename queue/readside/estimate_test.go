package readside

import (
	"fmt"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// builder makes a queue's active entries and open runs for the estimate
// tests.
type builder struct {
	q       *queue.Queue
	entries []*queue.Entry
	runs    []*queue.TestRun
}

func newQueue(concurrency int) *builder {
	st := queue.DefaultSettings()
	st.Concurrency = concurrency
	return &builder{q: &queue.Queue{ID: 1, State: queue.QueueRunning, Settings: st}}
}

// entry adds an entry for PR n in state st with sequence n.
func (b *builder) entry(n int, st queue.EntryState) *queue.Entry {
	e := &queue.Entry{ID: fmt.Sprintf("e%d", n), QueueID: 1, PRNumber: n, PRSHA: fmt.Sprintf("sha%d", n),
		State: st, PriorityValue: queue.DefaultPriority, Seq: int64(n), SubmittedAt: t0}
	b.entries = append(b.entries, e)
	return e
}

// run attaches a run started at t0 to entry e.
func (b *builder) run(e *queue.Entry, status queue.RunStatus) *queue.TestRun {
	r := &queue.TestRun{ID: "r-" + e.ID, QueueID: 1, EntryIDs: []string{e.ID}, PRNumbers: []int{e.PRNumber},
		Status: status, StartedAt: t0}
	e.RunID = r.ID
	b.runs = append(b.runs, r)
	return r
}

func TestTypicalDuration(t *testing.T) {
	run := func(start, end time.Duration) *queue.TestRun {
		return &queue.TestRun{StartedAt: t0.Add(start), FinishedAt: t0.Add(end)}
	}
	for _, tc := range []struct {
		name string
		runs []*queue.TestRun
		want time.Duration
	}{
		{"none", nil, 0},
		{"one", []*queue.TestRun{run(0, 10*time.Minute)}, 10 * time.Minute},
		{"median, not mean", []*queue.TestRun{run(0, 10*time.Minute), run(0, 12*time.Minute), run(0, 90*time.Minute)}, 12 * time.Minute},
		{"runs without times are skipped", []*queue.TestRun{{}, run(0, 5*time.Minute)}, 5 * time.Minute},
	} {
		if got := TypicalDuration(tc.runs); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestEstimates(t *testing.T) {
	const d = 10 * time.Minute
	now := t0.Add(4 * time.Minute)
	tests := []struct {
		name  string
		build func(b *builder)
		// want maps PR numbers to the expected merge time after t0 (-1:
		// no time) and the expected position.
		want map[int][2]time.Duration
	}{
		{"serial: one run at a time, in order", func(b *builder) {
			b.q.Settings.Concurrency = 1
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress) // started at t0: ends at t0+10m
			b.entry(2, queue.StatePending)
			b.entry(3, queue.StatePending)
		}, map[int][2]time.Duration{1: {10 * time.Minute, 1}, 2: {20 * time.Minute, 2}, 3: {30 * time.Minute, 3}}},
		{"speculative: two slots, merges stay in order", func(b *builder) {
			b.q.Settings.Concurrency = 2
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress)
			b.entry(2, queue.StatePending) // a free slot: starts now, ends now+10m
			b.entry(3, queue.StatePending) // the slot freed at t0+10m
		}, map[int][2]time.Duration{1: {10 * time.Minute, 1}, 2: {14 * time.Minute, 2}, 3: {20 * time.Minute, 3}}},
		{"batches share a run", func(b *builder) {
			b.q.Settings.Concurrency = 1
			b.q.Settings.Batch, b.q.Settings.BatchingMinSize = true, 2
			for n := 1; n <= 3; n++ {
				b.entry(n, queue.StatePending)
			}
		}, map[int][2]time.Duration{1: {14 * time.Minute, 1}, 2: {14 * time.Minute, 2}, 3: {24 * time.Minute, 3}}},
		{"a run that overran ends no earlier than now", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			r := b.run(e1, queue.RunInProgress)
			r.StartedAt = t0.Add(-time.Hour)
		}, map[int][2]time.Duration{1: {4 * time.Minute, 1}}},
		{"tests passed: merges now", func(b *builder) {
			b.entry(1, queue.StateTestsPassed)
		}, map[int][2]time.Duration{1: {4 * time.Minute, 1}}},
		{"no time behind an undecided failure", func(b *builder) {
			b.entry(1, queue.StatePending)
			b.entry(2, queue.StatePendingFailure)
			b.entry(3, queue.StatePending)
		}, map[int][2]time.Duration{1: {14 * time.Minute, 1}, 2: {-1, 2}, 3: {-1, 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newQueue(1)
			tc.build(b)
			got := Estimates(b.q, b.entries, b.runs, d, now)
			if len(got) != len(tc.want) {
				t.Fatalf("%d estimates, want %d", len(got), len(tc.want))
			}
			for _, e := range b.entries {
				w := tc.want[e.PRNumber]
				est := got[e.ID]
				if est.Position != int(w[1]) || est.Of != len(tc.want) {
					t.Errorf("#%d: position %d of %d, want %d of %d", e.PRNumber, est.Position, est.Of, w[1], len(tc.want))
				}
				switch {
				case w[0] < 0 && !est.MergeAt.IsZero():
					t.Errorf("#%d: merges at %v, want no estimate", e.PRNumber, est.MergeAt.Sub(t0))
				case w[0] >= 0 && !est.MergeAt.Equal(t0.Add(w[0])):
					t.Errorf("#%d: merges at t0+%v, want t0+%v", e.PRNumber, est.MergeAt.Sub(t0), w[0])
				}
			}
		})
	}
	b := newQueue(1)
	b.entry(1, queue.StatePending)
	if got := Estimates(b.q, b.entries, b.runs, 0, now)[b.entries[0].ID]; got.Position != 1 || !got.MergeAt.IsZero() {
		t.Errorf("without a typical duration: %+v, want a position and no time", got)
	}
}
