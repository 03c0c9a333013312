package notify

import (
	"context"
	"fmt"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/textsafe"
)

// Repository names the repository of a notification.
type Repository struct {
	Host  string `json:"host"`
	Owner string `json:"owner"`
	Name  string `json:"name"`
}

// Message is one notification (SPEC §8). Type is pull_request or
// pull_request_batch; PRNumber is set for the first, PRNumbers for the
// second. Type queue_alert (our addition) is an alert of the queue itself:
// Action is raised or cleared, Alert (and Status) its kind (stalled,
// checks_not_starting), Detail what is wrong; it names no PR. Type
// queue_autotune (ours too) is a change of the queue's settings by
// autoTune: Action changed (Detail its reason and the new tuning) or
// abandoned (a choice over its time budget; the tuning in force kept).
type Message struct {
	// ID is stable across retries (the webhook-id), so receivers can drop
	// duplicates.
	ID                 string     `json:"-"`
	Type               string     `json:"type"`
	Action             string     `json:"action"`
	Status             string     `json:"status"`
	Timestamp          string     `json:"timestamp"`
	Repository         Repository `json:"repository"`
	TargetBranch       string     `json:"target_branch"`
	PRNumber           int        `json:"pr_number,omitempty"`
	PRNumbers          []int      `json:"pr_numbers,omitempty"`
	Author             string     `json:"author,omitempty"`
	TestBranch         string     `json:"test_branch,omitempty"`
	TestBranchSHA      string     `json:"test_branch_sha,omitempty"`
	TestPRNumber       *int       `json:"test_pr_number"`
	Batched            bool       `json:"batched"`
	IsBisection        bool       `json:"is_bisection"`
	FailureReason      string     `json:"failure_reason,omitempty"`
	CancellationReason string     `json:"cancellation_reason,omitempty"`
	// Reason and Detail say why, as on the PR (our addition). Detail is
	// plain text that may quote others' text (check names, CI URLs, which
	// are validated http(s) URLs): receivers escape it for where they show
	// it. DetailsURL is always the dashboard's, never a URL from CI.
	Reason     string `json:"reason"`
	Detail     string `json:"detail"`
	DetailsURL string `json:"details_url"`
	// Alert is a queue_alert's kind (queue.AlertKind).
	Alert string `json:"alert,omitempty"`
}

// Lookup reads what an event refers to.
type Lookup interface {
	GetQueueByID(ctx context.Context, id int64) (*queue.Queue, error)
	GetEntryByID(ctx context.Context, id string) (*queue.Entry, error)
	GetRun(ctx context.Context, id string) (*queue.TestRun, error)
	// GetRunSurface gives a run's draft test PR (queue.ErrNotFound: none).
	GetRunSurface(ctx context.Context, runID string) (*queue.RunSurface, error)
}

// testPR is the number of a run's draft test PR, or nil when it has none
// (yet: the reconciler opens it just after the run starts).
func testPR(ctx context.Context, look Lookup, run *queue.TestRun) *int {
	if run == nil {
		return nil
	}
	rs, err := look.GetRunSurface(ctx, run.ID)
	if err != nil || rs.PRNumber == 0 {
		return nil
	}
	n := rs.PRNumber
	return &n
}

// prAction maps an entry's new state to the pull_request action; "" when
// the change is not notified.
func prAction(ev queue.Event) string {
	switch ev.To {
	case queue.StateNotReady:
		if ev.From == "" {
			return "submitted"
		}
	case queue.StatePending:
		return "queued"
	case queue.StateTesting:
		return "testing"
	case queue.StateMerged:
		return "merged"
	case queue.StateFailed:
		return "failed"
	case queue.StateCancelled:
		return "canceled"
	}
	return ""
}

// messages turns one event into its notifications: the pull_request one,
// and a pull_request_batch one when the event starts, fails, waits on or
// completes a batch (reported once, on the batch's first or last entry).
func messages(ctx context.Context, look Lookup, ev queue.Event, detailsURL string) ([]Message, error) {
	q, err := look.GetQueueByID(ctx, ev.QueueID)
	if err != nil {
		return nil, fmt.Errorf("failed to load queue %d: %w", ev.QueueID, err)
	}
	if kind, raised, ok := ev.Alert(); ok {
		return []Message{alertMessage(q, ev, kind, raised, detailsURL)}, nil
	}
	if r, ok := ev.Tuning(); ok {
		return []Message{tuningMessage(q, ev, r, detailsURL)}, nil
	}
	e, err := look.GetEntryByID(ctx, ev.EntryID)
	if err != nil {
		return nil, fmt.Errorf("failed to load entry %s: %w", ev.EntryID, err)
	}
	var run, parent *queue.TestRun
	if ev.RunID != "" {
		if run, err = look.GetRun(ctx, ev.RunID); err != nil {
			run = nil // closed and pruned runs leave the test fields empty
		}
	}
	if run != nil && run.Parent != "" {
		if parent, err = look.GetRun(ctx, run.Parent); err != nil {
			parent = nil
		}
	}
	base := Message{
		Status:       string(ev.To),
		Timestamp:    ev.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Repository:   Repository{Host: q.Key.Repo.Host, Owner: q.Key.Repo.Owner, Name: q.Key.Repo.Name},
		TargetBranch: q.Key.Branch,
		Reason:       string(ev.Reason),
		Detail:       ev.Detail,
		DetailsURL:   detailsURL,
	}
	if run != nil {
		base.TestBranch, base.TestBranchSHA = run.Branch, run.SHA
		base.Batched, base.IsBisection = len(run.EntryIDs) > 1, run.Bisection
		base.TestPRNumber = testPR(ctx, look, run)
	}
	switch ev.To {
	case queue.StateFailed:
		base.FailureReason = string(ev.Reason)
	case queue.StateCancelled:
		base.CancellationReason = string(ev.Reason)
	}
	var out []Message
	if action := prAction(ev); action != "" {
		m := base
		m.ID, m.Type, m.Action, m.PRNumber, m.Author = fmt.Sprintf("evt_%d", ev.ID), "pull_request", action, ev.PRNumber, e.Submitter
		if m.Author == "" {
			m.Author = e.PR.Author
		}
		out = append(out, m)
	}
	if b, ok := batchMessage(base, ev, run, parent); ok {
		if b.TestBranch != base.TestBranch { // the failed batch, not its bisection run
			b.TestPRNumber = testPR(ctx, look, parent)
		}
		b.ID = fmt.Sprintf("evt_%d_batch", ev.ID)
		out = append(out, b)
	}
	return out, nil
}

// alertMessage is the queue_alert notification of a queue alert event.
func alertMessage(q *queue.Queue, ev queue.Event, kind queue.AlertKind, raised bool, detailsURL string) Message {
	action := "cleared"
	if raised {
		action = "raised"
	}
	return Message{
		ID:           fmt.Sprintf("evt_%d", ev.ID),
		Type:         "queue_alert",
		Action:       action,
		Status:       string(kind),
		Alert:        string(kind),
		Timestamp:    ev.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Repository:   Repository{Host: q.Key.Repo.Host, Owner: q.Key.Repo.Owner, Name: q.Key.Repo.Name},
		TargetBranch: q.Key.Branch,
		Reason:       string(ev.Reason),
		Detail:       ev.Detail,
		DetailsURL:   detailsURL,
	}
}

// tuningMessage is the queue_autotune notification of an autoTune event.
func tuningMessage(q *queue.Queue, ev queue.Event, r queue.Reason, detailsURL string) Message {
	action := "changed"
	if r == queue.ReasonQueueAutoTuneAbandoned {
		action = "abandoned"
	}
	return Message{
		ID:           fmt.Sprintf("evt_%d", ev.ID),
		Type:         "queue_autotune",
		Action:       action,
		Status:       "autotune",
		Timestamp:    ev.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Repository:   Repository{Host: q.Key.Repo.Host, Owner: q.Key.Repo.Owner, Name: q.Key.Repo.Name},
		TargetBranch: q.Key.Branch,
		Reason:       string(ev.Reason),
		Detail:       ev.Detail,
		DetailsURL:   detailsURL,
	}
}

// batchMessage is the pull_request_batch notification an event stands for.
func batchMessage(base Message, ev queue.Event, run, parent *queue.TestRun) (Message, bool) {
	first := func(r *queue.TestRun) bool { return r != nil && len(r.EntryIDs) > 1 && r.EntryIDs[0] == ev.EntryID }
	last := func(r *queue.TestRun) bool {
		return r != nil && len(r.EntryIDs) > 1 && r.EntryIDs[len(r.EntryIDs)-1] == ev.EntryID
	}
	m := base
	m.Type, m.Batched = "pull_request_batch", true
	switch {
	case ev.To == queue.StateTesting && first(parent) && ev.From == queue.StateTesting:
		// Bisection of a failed batch starts: the batch failed.
		m.Action, m.PRNumbers, m.IsBisection = "failed", parent.PRNumbers, false
		m.TestBranch, m.TestBranchSHA = parent.Branch, parent.SHA
		m.FailureReason = string(parent.FailureReason)
		if m.FailureReason == "" {
			m.FailureReason = string(queue.ReasonTestsFailed)
		}
	case ev.To == queue.StateTesting && first(run):
		m.Action, m.PRNumbers = "testing", run.PRNumbers
	case ev.To == queue.StatePendingFailure && first(run):
		m.Action, m.PRNumbers = "pending_failure", run.PRNumbers
	case ev.To == queue.StateFailed && first(run) && !run.Bisection:
		m.Action, m.PRNumbers = "failed", run.PRNumbers
	case ev.To == queue.StateMerged && last(run):
		m.Action, m.PRNumbers = "merged", run.PRNumbers
	default:
		return Message{}, false
	}
	return m, true
}

// Summary is a one-line description for chat, in Slack mrkdwn: the whole
// line goes through textsafe.Slack, so the repository, branch and detail
// (which quotes check names and CI URLs) never form a mention, a special
// command such as <!channel>, or a link with other text.
func (m Message) Summary() string {
	who := fmt.Sprintf("#%d", m.PRNumber)
	if m.Type == "pull_request_batch" {
		who = "batch"
		for i, n := range m.PRNumbers {
			sep := " "
			if i > 0 {
				sep = ", "
			}
			who += fmt.Sprintf("%s#%d", sep, n)
		}
	}
	if m.Type == "queue_alert" {
		who = "queue alert " + m.Alert
	}
	if m.Type == "queue_autotune" {
		who = "autoTune"
	}
	line := fmt.Sprintf("%s/%s → %s: %s %s", m.Repository.Owner, m.Repository.Name, m.TargetBranch, who, m.Action)
	if m.Detail != "" {
		line += " — " + m.Detail
	}
	return textsafe.Slack(line)
}
