package queue

import (
	"errors"
	"fmt"
	"time"
)

// ErrNotActive means the PR has no active entry in the queue.
var ErrNotActive = errors.New("pull request is not active in the queue")

// InputError is a request the queue refuses as invalid (HTTP 400, or a
// polite reply to a command). Its message is safe to show to users.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// Inputf builds an *InputError.
func Inputf(format string, args ...any) error { return &InputError{Msg: fmt.Sprintf(format, args...)} }

// SubmitRequest puts a PR into a queue (or updates its active entry).
type SubmitRequest struct {
	Key      QueueKey
	PRNumber int
	// Priority is a name ("urgent", "high", "medium", "low", any case) or a
	// number 0–255 as a string; "" means the default (medium).
	Priority  string
	NoBatch   bool
	Direct    bool   // skip the readiness wait (admin only; checked by the caller)
	Submitter string // GitHub login; "" = the PR author
	Source    string // "comment", "label" or "api"
}

// Readiness explains what an entry waits for before admission (SPEC §7).
type Readiness struct {
	HasImpactedTargets      bool
	RequiresImpactedTargets bool
	DoesBaseBranchMatch     bool
	// GitHubMergeability is "unspecified", "in_progress", "mergeable" or
	// "not_mergeable".
	GitHubMergeability string
}

// SubmittedPR is an entry as shown by getSubmittedPullRequest.
type SubmittedPR struct {
	Entry     *Entry
	Readiness Readiness
	// QueuePosition is the 1-based position among admitted entries (0 if
	// not admitted or ended).
	QueuePosition int
	// EstimatedMergeAt is when the entry is expected to merge (zero when
	// unknown: not admitted, ended, or no run finished yet).
	EstimatedMergeAt time.Time
	// TestingTimesOutAt is when the entry's run in progress times out
	// (zero when not testing or without a testing timeout).
	TestingTimesOutAt time.Time
	// WaitingFor is what the entry waits for right now (nil once ended).
	WaitingFor *Waiting
	// TestRunID is the current test run's ID ("" if none).
	TestRunID string
	// IsCurrentlySubmitted is true while the entry is active.
	IsCurrentlySubmitted bool
	// VerifiedByTestRun is the ID of the test run whose result decided
	// the entry's state: its own passing run (tests_passed, or merged by
	// the queue) or the run that failed it (pending_failure, or failed
	// with that run's reason). "" when no run decided it: not tested yet
	// or still testing, vouched for by another run, merged directly or
	// outside the queue, cancelled, failed for another reason, or ended
	// longer ago than the event log is kept.
	VerifiedByTestRun string
}

// TargetsUpdate uploads a PR's impacted targets for one head SHA.
type TargetsUpdate struct {
	Key      QueueKey
	PRNumber int
	SHA      string
	// All marks the PR as impacting every target; List is then ignored.
	All  bool
	List []string
	// VerifyPR reads the PR from GitHub before anything is stored, so that
	// a PR GitHub does not know is ErrPRNotFound (SPEC §7: 404). The REST
	// API sets it, unless the request's credential already read the PR
	// (ConfirmForkedRun).
	VerifyPR bool
	// Source is the upload's credential ("" = TargetsFromToken). An upload
	// from TargetsFromForkRun over targets a token set for the same SHA is
	// ErrTargetsSetByToken and stores nothing.
	Source TargetsSource
}

// ErrTargetsSetByToken means a forked workflow run's upload would replace
// impacted targets set with an API token for the same head SHA.
var ErrTargetsSetByToken = errors.New("impacted targets were set with an API token")
