package queue

import (
	"context"
	"fmt"
	"strings"

	"github.com/rs/zerolog"
)

// notify tells the PR about an entry's new state: the sticky status
// comment (edited in place), the queue's check run, and a fresh comment
// mentioning the submitter when the entry failed or was cancelled (edits
// send no notification). A failed update is logged and tried again on the
// queue's next Syncs (retrySurfaces) until it goes through.
func (s *Service) notify(ctx context.Context, q *Queue, e *Entry, from EntryState) {
	mention := q.Settings.CommentsEnabled && (e.State == StateFailed || e.State == StateCancelled) && from != e.State
	ok := s.updateSurfaces(ctx, q, e)
	if mention && !s.postComment(ctx, q, e, failureComment(q, e)) {
		ok = false
	} else {
		mention = false
	}
	s.updateLabels(ctx, q, e, from)
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.staleSurfaces[e.ID]
	r.queueID, r.mention = q.ID, r.mention || mention
	if ok && !r.mention {
		delete(s.staleSurfaces, e.ID)
		return
	}
	s.staleSurfaces[e.ID] = r
}

// surfaceRetry is an entry whose PR surfaces are behind its state.
type surfaceRetry struct {
	queueID int64
	mention bool // the failure comment is still to be posted
}

// updateSurfaces brings the sticky status comment and the check run up to
// date with the entry; it reports whether both went through.
func (s *Service) updateSurfaces(ctx context.Context, q *Queue, e *Entry) bool {
	log := zerolog.Ctx(ctx).With().Int("pr", e.PRNumber).Logger()
	repo := q.Key.Repo
	changed, ok := false, true
	if q.Settings.CommentsEnabled {
		id, err := s.gh.UpsertComment(ctx, repo, e.PRNumber, e.StatusCommentID, statusComment(q, e))
		if err != nil {
			log.Warn().Err(err).Msg("failed to update the status comment; will retry")
			ok = false
		} else if id != e.StatusCommentID {
			e.StatusCommentID, changed = id, true
		}
	}
	if q.Settings.StatusCheckEnabled && e.PRSHA != "" {
		id, err := s.gh.UpsertCheckRun(ctx, repo, e.CheckRunID, checkRun(q, e))
		if err != nil {
			log.Warn().Err(err).Msg("failed to update the check run; will retry")
			ok = false
		} else if id != e.CheckRunID {
			e.CheckRunID, changed = id, true
		}
	}
	if changed {
		if err := s.saveSurfaceIDs(ctx, e); err != nil {
			log.Warn().Err(err).Msg("failed to save comment and check run ids")
		}
	}
	return ok
}

// retrySurfaces retries the PR updates of the queue's entries that failed
// before (their current state is shown, and a failure comment still owed
// is posted). Entries that ended are retried too; deleted ones dropped.
func (s *Service) retrySurfaces(ctx context.Context, q *Queue) {
	s.mu.Lock()
	var due []string
	for id, r := range s.staleSurfaces {
		if r.queueID == q.ID {
			due = append(due, id)
		}
	}
	s.mu.Unlock()
	for _, id := range due {
		e, err := s.store.GetEntryByID(ctx, id)
		if err != nil {
			s.mu.Lock()
			delete(s.staleSurfaces, id)
			s.mu.Unlock()
			continue
		}
		s.mu.Lock()
		r := s.staleSurfaces[id]
		s.mu.Unlock()
		ok := s.updateSurfaces(ctx, q, e)
		if r.mention && ok {
			r.mention = !s.postComment(ctx, q, e, failureComment(q, e))
			ok = !r.mention
		}
		s.mu.Lock()
		if ok {
			delete(s.staleSurfaces, id)
		} else {
			s.staleSurfaces[id] = r
		}
		s.mu.Unlock()
	}
}

// saveSurfaceIDs stores the comment and check run ids without overwriting
// anything else changed meanwhile.
func (s *Service) saveSurfaceIDs(ctx context.Context, e *Entry) error {
	cur, err := s.store.GetEntryByID(ctx, e.ID)
	if err != nil {
		return err
	}
	cur.StatusCommentID, cur.CheckRunID = e.StatusCommentID, e.CheckRunID
	return s.store.SaveEntry(ctx, cur)
}

// postComment posts a new comment and reports whether it went through.
func (s *Service) postComment(ctx context.Context, q *Queue, e *Entry, body string) bool {
	if _, err := s.gh.UpsertComment(ctx, q.Key.Repo, e.PRNumber, 0, body); err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Int("pr", e.PRNumber).Msg("failed to post a comment")
		return false
	}
	return true
}

var stateWords = map[EntryState]string{
	StateNotReady:       "⏳ Waiting to be ready",
	StatePending:        "🕐 Queued",
	StateTesting:        "🧪 Testing",
	StateTestsPassed:    "✅ Tests passed, waiting to merge",
	StatePendingFailure: "⚠️ Tests failed, waiting on the PRs ahead",
	StateMerged:         "🎉 Merged",
	StateFailed:         "❌ Failed",
	StateCancelled:      "🚫 Cancelled",
}

// StatusMarker identifies the queue's sticky comment on a PR.
func StatusMarker(q *Queue) string {
	return fmt.Sprintf("<!-- merge-queue-status %s -->", q.Key)
}

func statusComment(q *Queue, e *Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n**Merge queue** (`%s`): %s\n\n", StatusMarker(q), q.Key.Branch, stateWords[e.State])
	if e.StateReasonDetail != "" {
		fmt.Fprintf(&b, "%s\n\n", e.StateReasonDetail)
	}
	fmt.Fprintf(&b, "<sub>state `%s` · reason `%s` · priority %s (%d) · head %s</sub>\n",
		e.State, e.StateReason, e.PriorityName, e.PriorityValue, short(e.PRSHA))
	return b.String()
}

func failureComment(q *Queue, e *Entry) string {
	who := e.Submitter
	if who == "" {
		who = e.PR.Author
	}
	mention := ""
	if who != "" {
		mention = "@" + who + " "
	}
	verb := "was removed from"
	if e.State == StateFailed {
		verb = "failed in"
	}
	return fmt.Sprintf("%sthis pull request %s the merge queue for `%s` (`%s`): %s", mention, verb, q.Key.Branch, e.StateReason, e.StateReasonDetail)
}

func checkRun(q *Queue, e *Entry) CheckRun {
	cr := CheckRun{Name: fmt.Sprintf("Merge Queue (%s)", q.Key.Branch), HeadSHA: e.PRSHA,
		Title: stateWords[e.State], Summary: fmt.Sprintf("`%s` (%s): %s", e.State, e.StateReason, e.StateReasonDetail)}
	switch e.State {
	case StateNotReady, StatePending:
		cr.Status = "queued"
	case StateTesting, StateTestsPassed, StatePendingFailure:
		cr.Status = "in_progress"
	case StateMerged:
		cr.Status, cr.Conclusion = "completed", "success"
	case StateFailed:
		cr.Status, cr.Conclusion = "completed", "failure"
	case StateCancelled:
		cr.Status, cr.Conclusion = "completed", "cancelled"
	}
	return cr
}
