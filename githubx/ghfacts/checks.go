package ghfacts

import (
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/textsafe"
)

// CheckRunState is the rule for check runs: a run not completed is
// pending; a completed run passes when its conclusion is success, neutral
// or skipped, and fails with any other conclusion (failure, cancelled,
// timed_out, action_required, stale, or none).
func CheckRunState(status, conclusion string) queue.CheckState {
	if status != "completed" {
		return queue.CheckPending
	}
	switch conclusion {
	case "success", "neutral", "skipped":
		return queue.CheckSuccess
	default:
		return queue.CheckFailure
	}
}

// StatusState is the rule for commit statuses: success passes, failure
// and error fail, anything else (pending, or a state GitHub may add) is
// pending: it never passes.
func StatusState(state string) queue.CheckState {
	switch state {
	case "success":
		return queue.CheckSuccess
	case "failure", "error":
		return queue.CheckFailure
	default:
		return queue.CheckPending
	}
}

// CheckRun turns a check run into a check result on its head_sha. State
// follows CheckRunState; Raw is the conclusion of a completed run, else
// its status. URL is the html_url (GitHub's page of the run), else the
// details_url (a page the run's creator chose), whichever textsafe.CIURL
// accepts first, in its canonical form ("" if neither): CI code can set
// them. UpdatedAt is completed_at for a completed run, else (or when
// GitHub gives no completed_at) started_at, in UTC. CheckRunID, SuiteID
// and App are the run's id, its check suite's and its App's slug.
func CheckRun(r *github.CheckRun) queue.CheckResult {
	c := queue.CheckResult{
		SHA:       r.GetHeadSHA(),
		Kind:      queue.KindCheckRun,
		Name:      r.GetName(),
		State:     CheckRunState(r.GetStatus(), r.GetConclusion()),
		Raw:       r.GetStatus(),
		URL:       textsafe.CIURL(r.GetHTMLURL()),
		UpdatedAt: utc(r.GetStartedAt()),
		// Which run of the check this is, and how to re-run it.
		CheckRunID: r.GetID(),
		SuiteID:    r.GetCheckSuite().GetID(),
		App:        r.GetApp().GetSlug(),
	}
	if c.URL == "" {
		c.URL = textsafe.CIURL(r.GetDetailsURL())
	}
	if r.GetStatus() == "completed" {
		c.Raw = r.GetConclusion()
		if t := r.GetCompletedAt(); !t.IsZero() {
			c.UpdatedAt = utc(t)
		}
	}
	return c
}

// StatusTime is when a commit status was last set: its updated_at, else
// its created_at (zero when GitHub gives neither).
func StatusTime(s *github.RepoStatus) time.Time {
	if t := s.GetUpdatedAt(); !t.IsZero() {
		return t.Time
	}
	return s.GetCreatedAt().Time
}

// Status turns a commit status on sha into a check result. State follows
// StatusState; Raw is the state as GitHub wrote it; URL is the target_url
// as textsafe.CIURL accepts it ("" if it does not: CI code can set it);
// UpdatedAt is StatusTime in UTC.
func Status(sha string, s *github.RepoStatus) queue.CheckResult {
	return queue.CheckResult{
		SHA:       sha,
		Kind:      queue.KindStatus,
		Name:      s.GetContext(),
		State:     StatusState(s.GetState()),
		Raw:       s.GetState(),
		URL:       textsafe.CIURL(s.GetTargetURL()),
		UpdatedAt: StatusTime(s).UTC(),
	}
}

// utc is t in UTC; a zero Timestamp is the zero time.
func utc(t github.Timestamp) time.Time { return t.UTC() }
