package service_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// A transient failure on one PR's surface (one 502) does not end the pass:
// the other PRs' surfaces are written in the same pass, and the pass
// reports the failure. The failed surface stays due, with no attempt
// counted against it, and is written at the next pass.
func TestReconcilerGoesOnAfterATransientFailure(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, func(s *queue.Settings) { s.StatusCheckEnabled = false })
	var es []*queue.Entry
	for n := 1; n <= 4; n++ {
		es = append(es, w.set(n, fmt.Sprintf("head%d", n), queue.StatePendingFailure, queue.ReasonTestsFailed))
	}
	w.gh.fail["UpsertComment"] = []error{errBadGateway}
	if err := w.pass(); !errors.Is(err, queue.ErrTransient) {
		t.Fatalf("pass = %v, want the transient failure reported", err)
	}
	written, failed := 0, 0
	for _, e := range es {
		sf := w.surface(e)
		switch {
		case !sf.Due() && len(w.gh.commentsOn(e.PRNumber)) == 1:
			written++
		case sf.Due() && sf.Attempts == 0 && len(w.gh.commentsOn(e.PRNumber)) == 0:
			failed++
		default:
			t.Errorf("#%d: surface %+v, comments %q", e.PRNumber, sf, w.gh.commentsOn(e.PRNumber))
		}
	}
	if written != 3 || failed != 1 {
		t.Fatalf("%d surfaces written and %d failed in the pass, want 3 and 1", written, failed)
	}
	w.mustPass()
	for _, e := range es {
		if sf := w.surface(e); sf.Due() || len(w.gh.commentsOn(e.PRNumber)) != 1 {
			t.Errorf("#%d after the next pass: %+v", e.PRNumber, sf)
		}
	}
}

// Dead branches GitHub fails to delete (a 502 on the batch) stay recorded
// and the failure is reported; the next pass deletes them all.
func TestReconcilerDeletesTheBranchesAfterATransientFailure(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, nil)
	repo := opsKey.Repo
	names := []string{"mq-merge/pr-1/a", "mq-merge/pr-2/b", "mq-merge/pr-3/c"}
	for _, b := range names {
		w.gh.branches[b] = true
		if err := w.store.RecordRef(w.ctx, queue.Ref{Repo: repo, Name: b, QueueID: w.q.ID, CreatedAt: w.now}); err != nil {
			t.Fatal(err)
		}
	}
	w.now = w.now.Add(time.Minute) // past the wait for a publish to delete them with
	w.gh.fail["DeleteBranches"] = []error{errBadGateway}
	if err := w.pass(); !errors.Is(err, queue.ErrTransient) {
		t.Fatalf("pass = %v, want the transient failure reported", err)
	}
	left, _ := w.gh.ListBranches(w.ctx, repo, "mq-")
	refs, _ := w.store.ListRefs(w.ctx, repo)
	if len(left) != 3 || len(refs) != 3 {
		t.Fatalf("after the pass: branches %v, records %+v; want all three left, still recorded", left, refs)
	}
	w.mustPass()
	left, _ = w.gh.ListBranches(w.ctx, repo, "mq-")
	if refs, _ = w.store.ListRefs(w.ctx, repo); len(left) != 0 || len(refs) != 0 {
		t.Fatalf("after the next pass: branches %v, records %+v", left, refs)
	}
}

// GitHub failing as a whole (every write a 502) ends the pass after a few
// failures in a row rather than trying every due row.
func TestReconcilerStopsWhenGitHubFailsAsAWhole(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, func(s *queue.Settings) { s.StatusCheckEnabled = false })
	for n := 1; n <= 20; n++ {
		w.set(n, fmt.Sprintf("head%d", n), queue.StatePendingFailure, queue.ReasonTestsFailed)
	}
	for range 20 {
		w.gh.fail["UpsertComment"] = append(w.gh.fail["UpsertComment"], errBadGateway)
	}
	err := w.pass()
	if !errors.Is(err, queue.ErrTransient) || !strings.Contains(err.Error(), "in a row") {
		t.Fatalf("pass = %v, want it cut short", err)
	}
	if got := w.gh.count("UpsertComment"); got != 5 {
		t.Fatalf("%d comment writes tried, want 5", got)
	}
}
