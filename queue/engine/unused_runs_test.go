package engine

import (
	"reflect"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// A plain run no active entry refers to is closed, whatever its status: a
// replica that died (or lost its lease) after saving a run in progress and
// before pointing its entries at it, or after moving the entries on and
// before closing the run, left it open, its branch live for good. A run an
// entry refers to, a bisection's parent, an isolation run and one being
// built (closed by their own rules) are not.
func TestUnusedRunsAreClosed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		build func(b *builder)
		want  Action
	}{
		{"a run left in progress with no entry on it", func(b *builder) {
			e := b.entry(1, queue.StatePending)
			b.run(e, queue.RunInProgress, "H0")
			e.RunID = ""
		}, CloseRun{RunID: "r-e1"}},
		{"a passed run whose entry moved to another", func(b *builder) {
			e := b.entry(1, queue.StateTesting)
			b.run(e, queue.RunSucceeded, "H0").ID = "old"
			b.run(e, queue.RunInProgress, "H0")
		}, CloseRun{RunID: "old"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newSnap(2)
			tc.build(b)
			if got, _ := Next(b.s, t0); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Next = %#v, want %#v", got, tc.want)
			}
		})
	}
	kept := []struct {
		name  string
		build func(b *builder)
	}{
		{"a run its entry refers to", func(b *builder) {
			b.run(b.entry(1, queue.StateTesting), queue.RunInProgress, "H0")
		}},
		{"a failed batch being bisected", func(b *builder) {
			e1, e2 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTesting)
			parent := b.batchRun("batch", []*queue.Entry{e1, e2}, queue.RunFailed, "H0")
			r := b.run(e1, queue.RunInProgress, "H0")
			r.Bisection, r.Parent = true, parent.ID
			e2.RunID = r.ID
		}},
		{"an isolation run", func(b *builder) {
			e := b.entry(1, queue.StatePending)
			r := b.run(e, queue.RunInProgress, "H0")
			r.Isolation, e.RunID, e.IsolationRunID = true, "", r.ID
		}},
		{"a run being built", func(b *builder) {
			e := b.entry(1, queue.StatePending)
			b.run(e, queue.RunBuilding, "H0")
			e.RunID = ""
		}},
	}
	for _, tc := range kept {
		t.Run(tc.name, func(t *testing.T) {
			b := newSnap(2)
			tc.build(b)
			b.s.idx = nil
			p := &planner{s: b.s, q: b.s.Queue, now: t0}
			if got := p.unusedRuns(); got != nil {
				t.Errorf("unusedRuns = %#v, want none", got)
			}
		})
	}
}
