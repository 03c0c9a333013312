package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/mergequeue/mq/queue"
)

// readinessJSON explains what a not_ready entry waits for (SPEC §7).
type readinessJSON struct {
	HasImpactedTargets      bool   `json:"hasImpactedTargets"`
	RequiresImpactedTargets bool   `json:"requiresImpactedTargets"`
	DoesBaseBranchMatch     bool   `json:"doesBaseBranchMatch"`
	GitHubMergeability      string `json:"gitHubMergeability"`
}

// submittedPullRequestJSON is the getSubmittedPullRequest response: the
// seed §2.4 fields plus why the state last changed, whether the entry is
// still in the queue, its readiness, whether it was force-enqueued and
// the test run that decided it. queuePosition (1-based, admitted entries
// only), estimatedMergeAt (RFC 3339, when it is expected to merge;
// docs/eta.md) and testRunId are omitted when there is none; verifiedByTestRun is
// always present, null when no run decided the entry (the hosted API's
// shape: a run ID or null).
type submittedPullRequestJSON struct {
	pullRequestJSON
	StateReason                 string        `json:"stateReason"`
	StateReasonDetail           string        `json:"stateReasonDetail"`
	IsCurrentlySubmittedToQueue bool          `json:"isCurrentlySubmittedToQueue"`
	Readiness                   readinessJSON `json:"readiness"`
	// ForceEnqueued: submitted with the admin's --direct, skipping the
	// readiness wait (queue.Entry.Direct).
	ForceEnqueued     bool    `json:"forceEnqueued"`
	VerifiedByTestRun *string `json:"verifiedByTestRun"`
	QueuePosition     int     `json:"queuePosition,omitempty"`
	EstimatedMergeAt  *string `json:"estimatedMergeAt,omitempty"`
	TestRunID         string  `json:"testRunId,omitempty"`
	// TestingTimesOutAt (our addition) is when the entry's run in progress
	// times out, omitted when not testing or without a timeout.
	TestingTimesOutAt *string `json:"testingTimesOutAt,omitempty"`
	// WaitingFor (our addition) says what the entry waits for right now,
	// omitted once it ended.
	WaitingFor *waitingJSON `json:"waitingFor,omitempty"`
}

// waitingJSON is queue.Waiting on the wire: reason and detail always;
// since, check, commit and prs when known.
type waitingJSON struct {
	Reason string  `json:"reason"`
	Detail string  `json:"detail"`
	Since  *string `json:"since,omitempty"`
	Check  string  `json:"check,omitempty"`
	Commit string  `json:"commit,omitempty"`
	PRs    []int   `json:"prs,omitempty"`
}

func newWaitingJSON(w *queue.Waiting) *waitingJSON {
	if w == nil {
		return nil
	}
	return &waitingJSON{Reason: string(w.Reason), Detail: w.Detail, Since: optTimestamp(w.Since), Check: w.Check,
		Commit: w.Commit, PRs: w.PRs}
}

func newSubmittedPullRequestJSON(s *queue.SubmittedPR) submittedPullRequestJSON {
	mergeability := s.Readiness.GitHubMergeability
	if mergeability == "" {
		mergeability = "unspecified"
	}
	var verifiedBy *string
	if s.VerifiedByTestRun != "" {
		verifiedBy = &s.VerifiedByTestRun
	}
	return submittedPullRequestJSON{
		pullRequestJSON:             newPullRequestJSON(s.Entry),
		StateReason:                 string(s.Entry.StateReason),
		StateReasonDetail:           s.Entry.StateReasonDetail,
		IsCurrentlySubmittedToQueue: s.IsCurrentlySubmitted,
		Readiness: readinessJSON{
			HasImpactedTargets:      s.Readiness.HasImpactedTargets,
			RequiresImpactedTargets: s.Readiness.RequiresImpactedTargets,
			DoesBaseBranchMatch:     s.Readiness.DoesBaseBranchMatch,
			GitHubMergeability:      mergeability,
		},
		ForceEnqueued:     s.Entry.Direct,
		VerifiedByTestRun: verifiedBy,
		QueuePosition:     s.QueuePosition,
		EstimatedMergeAt:  optTimestamp(s.EstimatedMergeAt),
		TestRunID:         s.TestRunID,
		TestingTimesOutAt: optTimestamp(s.TestingTimesOutAt),
		WaitingFor:        newWaitingJSON(s.WaitingFor),
	}
}

// getSubmittedPullRequest (POST /v1/getSubmittedPullRequest) returns a PR's
// entry, also after it ended; 404 if the queue is unknown or the PR was
// never submitted to it.
func (a *API) getSubmittedPullRequest(w http.ResponseWriter, r *http.Request) error {
	var req prRequest
	if err := readJSON(w, r, &req); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	key, err := a.queueKey(r.Context(), req.queueRequest)
	if err != nil {
		return err
	}
	n := int(req.PR.Number)
	sub, err := a.reads.GetSubmitted(r.Context(), key, n)
	if err != nil {
		if errors.Is(err, queue.ErrNotFound) {
			return notFoundf("pull request #%d was never submitted to the queue for branch %q of %s (or that queue does not exist)",
				n, key.Branch, key.Repo.FullName())
		}
		return fmt.Errorf("failed to get submitted pull request #%d in %s: %w", n, key, err)
	}
	if sub == nil || sub.Entry == nil {
		return fmt.Errorf("service returned no entry for pull request #%d in %s", n, key)
	}
	return writeJSON(w, newSubmittedPullRequestJSON(sub))
}
