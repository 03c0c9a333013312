package service

import (
	"fmt"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
)

// What a PR's surfaces cost. GitHub allows an installation about 500
// content-creating requests an hour, and a merge needs some of them for
// itself (its test branch, the merge). So the surfaces distinguish what a
// reader must know from what only refreshes a text:
//
//   - The check run is created when the entry is admitted (or has waited to
//     be ready longer than a reconcile interval) and completed with its
//     conclusion; those writes are essential, and so is an admission after
//     a wait. The states in between (queued, testing, tests passed) and
//     the position and ETA are informational.
//   - The sticky comment exists only for an entry that needs explaining: it
//     is created when the entry waits to be ready or holds a failure
//     pending, and from then on follows each change of its state (its
//     essence); a change of position or ETA alone is informational. A PR
//     that goes through the queue without a hitch gets no sticky comment:
//     its check run says everything.
//
// Informational writes are made only when the installation's write budget
// has room (queue.WriteHeadroom) and the surface was last written five
// minutes ago or more (informationalGap), and a position or ETA alone at
// most once per refresh interval (refreshStandings); essential ones
// always.

// essenceSep separates a surface's essence from its full digest in the
// stored hash (queue.Surface.CommentHash, CheckRunHash).
const essenceSep = "/"

// stamp is what a surface's hash records: its essence and its full text.
func stamp(essence, full string) string { return digest(essence) + essenceSep + digest(full) }

// sameEssence reports whether the stored hash has the essence given.
func sameEssence(stored, essence string) bool {
	e, _, ok := strings.Cut(stored, essenceSep)
	return ok && e == digest(essence)
}

// commentEssence is what must make the sticky comment change.
func commentEssence(e *queue.Entry) string {
	switch e.State {
	case queue.StatePending, queue.StateTesting, queue.StateTestsPassed:
		return "in the queue"
	}
	return string(e.State) + "|" + string(e.StateReason) + "|" + e.StateReasonDetail
}

// needsExplaining reports whether an entry's state calls for a sticky
// comment when there is none yet: a failure pending, or waiting to be
// ready for longer than grace (every entry waits a moment at submission,
// while the queue reads its PR).
func needsExplaining(e *queue.Entry, now time.Time, grace time.Duration) bool {
	switch e.State {
	case queue.StatePendingFailure:
		return true
	case queue.StateNotReady:
		return !now.Before(e.StateChangedAt.Add(grace))
	}
	return false
}

// checkRunEssence is what must make the check run change: waiting to be
// ready, in the queue, or its conclusion.
func checkRunEssence(cr queue.CheckRun, st queue.EntryState) string {
	switch {
	case cr.Status == "completed":
		return "completed|" + cr.Conclusion + "|" + cr.Summary
	case st == queue.StateNotReady:
		return "not ready"
	}
	return "open"
}

// checkRunStamp is the stored hash of a check run as rendered for an entry
// in state st.
func checkRunStamp(cr queue.CheckRun, st queue.EntryState) string {
	return stamp(checkRunEssence(cr, st), fmt.Sprintf("%q", cr))
}

// commentDue decides whether the sticky comment is written now: its body
// and the hash to record, and whether it is due. Not due when it does not
// exist and nothing needs explaining, when the text is what was written,
// or when only informational parts changed and info (room in the write
// budget) is false.
func (r *Reconciler) commentDue(q *queue.Queue, e *queue.Entry, v entryView, sf *queue.Surface, info bool) (body, hash string, due bool) {
	exists := sf.CommentID != 0 || sf.CommentCreating
	if !exists && !needsExplaining(e, r.now(), r.every) {
		return "", "", false // nothing to explain: the check run says it
	}
	body = statusComment(q, e, v, r.now())
	essence := commentEssence(e)
	hash = stamp(essence, body)
	switch {
	case hash == sf.CommentHash && sf.CommentID != 0:
		return body, hash, false
	case sf.CommentID != 0 && sameEssence(sf.CommentHash, essence) && !info:
		return body, hash, false // informational only, and no room in the budget
	}
	return body, hash, true
}

// checkRunDue decides whether the check run on the entry's head is
// written now, as commentDue does for the comment: always when it does
// not exist yet (on this head) or its essence changed.
func (r *Reconciler) checkRunDue(q *queue.Queue, e *queue.Entry, v entryView, sf *queue.Surface, info bool) (cr queue.CheckRun, hash string, due bool) {
	cr = checkRun(q, e, v, r.now())
	hash = checkRunStamp(cr, e.State)
	switch {
	case sf.CheckRunID == 0 && !sf.CheckRunCreating && e.State == queue.StateNotReady && !needsExplaining(e, r.now(), r.every):
		return cr, hash, false // every entry waits a moment at submission: shown once admitted, or past the grace
	case sf.CheckRunID == 0 || sf.CheckRunSHA != e.PRSHA:
		return cr, hash, true
	case hash == sf.CheckRunHash:
		return cr, hash, false
	case sameEssence(sf.CheckRunHash, checkRunEssence(cr, e.State)) && !info:
		return cr, hash, false // informational only, and no room in the budget
	}
	return cr, hash, true
}
