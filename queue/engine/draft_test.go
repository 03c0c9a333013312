package engine

import (
	"testing"

	"github.com/mergequeue/mq/queue"
)

// A draft PR submitted (comment, label or API) waits in not_ready until it
// is ready for review; only a PR converted to a draft once admitted is
// cancelled with pr_draft (SPEC §3, issue #19).
func TestDraftPRWaitsUntilReady(t *testing.T) {
	t.Parallel()
	t.Run("submitted draft waits in not_ready", func(t *testing.T) {
		t.Parallel()
		b := newSnap(2)
		e := b.entry(1, queue.StateNotReady)
		e.PR.Draft = true
		got, _ := Next(b.s, t0)
		if tr, ok := got.(Transition); ok && tr.To != queue.StateNotReady {
			t.Fatalf("Next() = %#v; a submitted draft must wait in not_ready", got)
		}
		if ok, why := Ready(b.s.Queue, e); ok || why != "the pull request is a draft" {
			t.Errorf("Ready() = %v, %q; want not ready: the pull request is a draft", ok, why)
		}
	})
	t.Run("ready for review is admitted", func(t *testing.T) {
		t.Parallel()
		b := newSnap(2)
		e := b.entry(1, queue.StateNotReady)
		e.PR.Draft = false
		got, _ := Next(b.s, t0)
		if tr, ok := got.(Transition); !ok || tr.To != queue.StatePending {
			t.Fatalf("Next() = %#v; want the entry admitted", got)
		}
	})
	for _, st := range []queue.EntryState{queue.StatePending, queue.StateTesting} {
		t.Run("converted to draft while "+string(st)+" is cancelled", func(t *testing.T) {
			t.Parallel()
			b := newSnap(2)
			e := b.entry(1, st)
			if st == queue.StateTesting {
				b.run(e, queue.RunInProgress, "H0")
			}
			e.PR.Draft = true
			got, _ := Next(b.s, t0)
			want := Transition{EntryID: "e1", To: queue.StateCancelled, Reason: queue.ReasonPRDraft,
				Detail: "the pull request was converted to a draft", ClearRun: true}
			if got != any(want) {
				t.Errorf("Next() = %#v, want %#v", got, want)
			}
		})
	}
}
