package queue

import (
	"slices"
	"time"
)

// RunStatus is the status of a test run (SPEC §7 getMergeQueueTestingDetails).
type RunStatus string

const (
	RunBuilding   RunStatus = "building" // intent recorded, branch not yet published
	RunInProgress RunStatus = "in_progress"
	RunSucceeded  RunStatus = "succeeded"
	RunFailed     RunStatus = "failed"
	RunCancelled  RunStatus = "cancelled"
)

// Decided reports whether the run's result is known.
func (s RunStatus) Decided() bool {
	return s == RunSucceeded || s == RunFailed || s == RunCancelled
}

// TestRun is one attempt to test a unit (one entry, or a batch) on its
// predicted base: BaseSHA (the target head when built) plus the entries of
// Ahead merged in order, plus the unit's own entries.
type TestRun struct {
	ID      string
	QueueID int64
	// EntryIDs are the entries the run tests (the unit), in queue order.
	EntryIDs []string
	// PRNumbers and PRSHAs parallel EntryIDs: what exactly was merged.
	PRNumbers []int
	PRSHAs    []string
	// Ahead are the entries ahead whose changes the run's base includes.
	Ahead []string
	// BaseSHA is the target branch head the run was built on.
	BaseSHA string
	// Branch is the published test branch; SHA its commit (empty while building).
	Branch string
	SHA    string
	// RequiredChecks are the check names that must pass, resolved at start.
	RequiredChecks []string
	// RequiredSource is where RequiredChecks came from ("" for runs
	// recorded before it was kept).
	RequiredSource RequiredSource
	// Bisection runs isolate the culprit of a failed batch; Parent is the
	// failed run being bisected ("" otherwise).
	Bisection bool
	Parent    string
	// Isolation runs test one entry alone on the target head (BaseSHA),
	// beside the chain (Settings.IsolationRuns); the entry refers to it by
	// Entry.IsolationRunID, never by RunID, and its result only decides
	// whether the entry stays (it is never merged from).
	Isolation bool

	Status RunStatus
	// FailureReason/FailureDetail say why a failed run failed
	// (tests_failed, test_timeout, no_required_statuses, …).
	FailureReason Reason
	FailureDetail string

	CreatedAt time.Time
	// StartedAt is when the branch was published, or when the failed
	// checks were last re-run in place (RerunChecks): the start of the
	// attempt, which the testing timeout and the checks' start count from.
	StartedAt  time.Time
	FinishedAt time.Time
	// RerunChecks are the ids of the failed check runs on SHA that were
	// re-run in place (Settings.CheckRetries: GitHub Actions' failed jobs
	// re-run, or their check suite re-requested): a result of one of them
	// is the earlier attempt's, not this one's (ChecksOfAttempt).
	RerunChecks []int64
	// Closed is set once the run no longer matters to the queue (cancelled,
	// or all its entries ended) and its branch has been deleted.
	Closed bool
}

// RequiredSource says where a run's required checks came from
// (getMergeQueueTestingDetails' requiredStatusesSource).
type RequiredSource string

const (
	// RequiredFromQueue is the queue's requiredStatuses. The value is the
	// hosted API's, which calls a queue a merge instance.
	RequiredFromQueue RequiredSource = "merge_instance"
	// RequiredFromBranchProtection is the target branch's protection rules.
	RequiredFromBranchProtection RequiredSource = "branch_protection"
)

// RequiredSourceFor is where a new run's required checks come from, as
// the service resolves them (SPEC §6): a bisection run's from its parent,
// the failed run it splits (it must pass what the batch had to); else the
// queue's requiredStatuses when set (null is unset, [] is set); else branch
// protection.
func RequiredSourceFor(s Settings, parent *TestRun) RequiredSource {
	switch {
	case parent != nil:
		return parent.RequiredSource
	case s.RequiredStatuses != nil:
		return RequiredFromQueue
	}
	return RequiredFromBranchProtection
}

// CheckState is the normalised state of one status or check run.
type CheckState string

const (
	CheckPending CheckState = "pending"
	CheckSuccess CheckState = "success" // also neutral and skipped
	CheckFailure CheckState = "failure" // failure, error, cancelled, timed_out, action_required, stale
)

// CheckKind tells a commit status from a check run.
type CheckKind string

const (
	KindStatus   CheckKind = "status"
	KindCheckRun CheckKind = "check_run"
)

// CheckResult is one commit status or check run reported on a commit.
type CheckResult struct {
	SHA   string
	Kind  CheckKind
	Name  string // status context or check run name
	State CheckState
	// Raw is GitHub's own value (e.g. "neutral", "timed_out", "error").
	Raw       string
	URL       string
	UpdatedAt time.Time
	// CheckRunID, SuiteID and App identify a check run on GitHub (0, 0 and
	// "" for a commit status, or a result recorded before they were kept):
	// its id, its check suite's and the slug of the App that created it
	// ("github-actions" for GitHub Actions). They say how a failed check
	// run can be re-run in place (CheckRerunner).
	CheckRunID int64
	SuiteID    int64
	App        string
}

// GitHubActionsApp is the slug of GitHub Actions' App: its check runs are
// jobs of workflow runs.
const GitHubActionsApp = "github-actions"

// ChecksOfAttempt is checks as they stand for the current attempt of run
// r: a check run that r re-ran in place (TestRun.RerunChecks) is pending
// until its new run reports, whatever the earlier one concluded. checks
// is not modified.
func ChecksOfAttempt(r *TestRun, checks []CheckResult) []CheckResult {
	if r == nil || len(r.RerunChecks) == 0 {
		return checks
	}
	out := make([]CheckResult, len(checks))
	copy(out, checks)
	for i, c := range out {
		if c.Kind == KindCheckRun && c.CheckRunID != 0 && slices.Contains(r.RerunChecks, c.CheckRunID) {
			out[i].State, out[i].Raw = CheckPending, "queued"
		}
	}
	return out
}

// MergeRecord is one merge the queue made into a target branch: the branch
// moved from Before to After by merging the entry's PR.
type MergeRecord struct {
	QueueID  int64
	EntryID  string
	PRNumber int
	RunID    string
	Before   string
	After    string
	At       time.Time
}
