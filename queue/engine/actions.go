package engine

import "github.com/mergequeue/mq/queue"

// Action is one decision of the engine, executed by the Service.
type Action interface{ isAction() }

// Transition moves an entry to another state (or, with the same state,
// updates its detail). ClearRun detaches the entry from its run, closing
// the run when no active entry uses it any more.
type Transition struct {
	EntryID  string
	To       queue.EntryState
	Reason   queue.Reason
	Detail   string
	ClearRun bool
	// Quiet keeps a change of detail only (same state) off the PR's
	// comment and check run: it shows in the API and on the dashboard.
	Quiet bool
	// BlockedBy makes the entry wait for that entry ahead (a conflict,
	// SPEC §5.9); ClearConflict drops its settled Conflict.
	BlockedBy     string
	ClearConflict bool
	// FlakeRetry marks the one retest of a chain failure that a passing
	// isolation run vouched for (Entry.FlakeRetried).
	FlakeRetry bool
	// RetryFailure is, for a retry of a run that failed on a check
	// (reason retrying_failed_check), what failed: added to the entry's
	// CheckRetryLog as it counts the attempt ("" when the attempt was
	// counted already: a re-run in place that fell back to a new commit).
	RetryFailure string
}

// FinishRun records a test run's result, decided from its checks or its
// timeout.
type FinishRun struct {
	RunID  string
	Status queue.RunStatus
	Reason queue.Reason // for failed runs: tests_failed or test_timeout
	Detail string
}

// CloseRun ends a run nobody needs any more and deletes its branch.
type CloseRun struct {
	RunID string
}

// StartRun builds a test branch for Unit on top of Ahead and starts its
// run. The branch starts from From (the target head, or the commit of the
// run of the unit just ahead) and merges the heads of Merge in order.
type StartRun struct {
	Unit    []string // entry IDs tested by the run
	Ahead   []string // entry IDs whose changes the base includes
	BaseSHA string   // target head the run is predicted on
	From    string   // commit to build from
	Merge   []string // entry IDs whose heads are merged onto From, in order
	// Bisection runs test part of a failed batch (Parent). A run must pass
	// the snapshot's Required checks; a bisection run its parent's.
	Bisection bool
	Parent    string
	// Isolation runs test one entry alone on the target head, beside the
	// chain (Settings.IsolationRuns): the entry does not move to testing.
	Isolation bool
}

// IsolationResult records a decided isolation run on its entry (passed,
// or one more failure) and closes the run.
type IsolationResult struct {
	EntryID string
	RunID   string
	Passed  bool
}

// RefreshPR reads an entry's PR from GitHub before a final decision about
// it (Entry.PRCheckedAt), so a PR merged, closed or pushed whose webhook is
// late ends for that reason instead.
type RefreshPR struct {
	EntryID string
}

// ProbeConflict finds out what an entry's PR conflicts with after its test
// branch did not build (SPEC §5.9): the target head Base alone, then each
// entry of Before on its own, nearest first, until one conflicts.
type ProbeConflict struct {
	EntryID string
	Base    string
	Before  []string
}

// CheckDirect checks whether an entry may merge without a test run
// (directMergeMode always, SPEC §5.8): whether its head contains the target
// head Before, and the checks on its head.
type CheckDirect struct {
	EntryID string
	Before  string
}

// ApplyMode ends switching_modes: the pending mode applies and the queue
// returns to its previous state.
type ApplyMode struct{}

// Merge merges an entry whose run passed into the target branch.
type Merge struct {
	EntryID string
	RunID   string
	// Before is the target head the merge must land on.
	Before string
}

// ResolveMerge settles an entry whose merge was attempted but whose outcome
// was not recorded (a crash or an ambiguous GitHub answer): the Service
// reads the PR back and records the merge or clears the intent.
type ResolveMerge struct {
	EntryID string
	RunID   string
	Before  string
}

func (Transition) isAction()      {}
func (FinishRun) isAction()       {}
func (CloseRun) isAction()        {}
func (StartRun) isAction()        {}
func (Merge) isAction()           {}
func (ResolveMerge) isAction()    {}
func (ApplyMode) isAction()       {}
func (RefreshPR) isAction()       {}
func (ProbeConflict) isAction()   {}
func (CheckDirect) isAction()     {}
func (IsolationResult) isAction() {}
