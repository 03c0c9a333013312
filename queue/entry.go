package queue

import "time"

// EntryState is the state of an entry (SPEC §3). Lower-case wire values.
type EntryState string

const (
	StateNotReady       EntryState = "not_ready"
	StatePending        EntryState = "pending"
	StateTesting        EntryState = "testing"
	StateTestsPassed    EntryState = "tests_passed"
	StatePendingFailure EntryState = "pending_failure"
	StateMerged         EntryState = "merged"
	StateFailed         EntryState = "failed"
	StateCancelled      EntryState = "cancelled"
)

// AllEntryStates lists every entry state, in lifecycle order.
var AllEntryStates = []EntryState{StateNotReady, StatePending, StateTesting, StateTestsPassed,
	StatePendingFailure, StateMerged, StateFailed, StateCancelled}

// Terminal reports whether s ends an entry's life in the queue.
func (s EntryState) Terminal() bool {
	return s == StateMerged || s == StateFailed || s == StateCancelled
}

// Reason is the machine-readable cause of the last state change (SPEC §3).
type Reason string

const (
	ReasonSubmitted                  Reason = "submitted"
	ReasonAdmitted                   Reason = "admitted"
	ReasonTesting                    Reason = "testing"
	ReasonTestsPassed                Reason = "tests_passed"
	ReasonVouched                    Reason = "vouched"
	ReasonRestartedBaseMoved         Reason = "restarted_base_moved"
	ReasonRestartedDependencyRemoved Reason = "restarted_dependency_removed"
	ReasonRestartedPreempted         Reason = "restarted_preempted"
	ReasonRestartedByUser            Reason = "restarted_by_user"
	ReasonTestsFailed                Reason = "tests_failed"
	ReasonTestTimeout                Reason = "test_timeout"
	ReasonMergeConflict              Reason = "merge_conflict"
	ReasonGitHubAPIFailed            Reason = "github_api_failed"
	ReasonNoRequiredStatuses         Reason = "no_required_statuses"
	ReasonUserRequested              Reason = "user_requested"
	ReasonPRClosed                   Reason = "pr_closed"
	ReasonPRPushed                   Reason = "pr_pushed"
	ReasonPRDraft                    Reason = "pr_draft"
	ReasonBaseBranchChanged          Reason = "base_branch_changed"
	ReasonNotReadyTimeout            Reason = "not_ready_timeout"
	ReasonLabelRemoved               Reason = "label_removed"
	ReasonMergedByQueue              Reason = "merged_by_queue"
	ReasonMergedManually             Reason = "merged_manually"
	// ReasonRestartedChecksMissing means the required checks of its run never
	// started; it is tested once more on a new test commit (our extension).
	ReasonRestartedChecksMissing Reason = "restarted_checks_not_started"
	// ReasonChecksNotStarted means the required checks never started twice in a
	// row; it waits, without blame, while the queue is paused (our
	// extension).
	ReasonChecksNotStarted Reason = "checks_not_started"
	// ReasonRetryingFailedCheck means its run failed on a check; it is tried
	// again on a new test commit, keeping its place (checkRetries; our
	// extension).
	ReasonRetryingFailedCheck Reason = "retrying_failed_check"
)

// PRFacts is what the queue last learned about a pull request from GitHub.
// MergeCommitSHA is the commit a merged PR landed as, "" until it merged:
// GitHub's merge_commit_sha of an open PR is a test merge that never
// lands, so it is no fact.
type PRFacts struct {
	Title          string
	Body           string
	Author         string
	HeadSHA        string
	BaseBranch     string
	Open           bool
	Draft          bool
	Merged         bool
	MergeCommitSHA string
	// MergeableState is GitHub's mergeable_state ("clean", "unstable",
	// "has_hooks", "behind", "dirty", "blocked", "unknown", "draft", "");
	// "" or "unknown" means GitHub has not computed it yet.
	MergeableState string
	// Mergeable is GitHub's mergeable: nil while GitHub computes it.
	Mergeable *bool
	// ReadAt is the moment the facts describe: GitHub's updated_at of the
	// PR (the same clock for API reads and webhook payloads, so newer facts
	// win whatever arrives first); zero if never read.
	ReadAt time.Time
}

// Entry is one pull request in one queue. Its ID is stable per (queue, PR
// number): a PR cancelled and resubmitted keeps its entry and its ID.
type Entry struct {
	ID       string
	QueueID  int64
	PRNumber int
	// PRSHA is the head SHA the entry was submitted with; it is the only
	// head the queue will test or merge. A PR whose head moves is cancelled.
	PRSHA string
	PR    PRFacts

	// Version is the entry's row version, kept by the store: 0 for an
	// entry never saved, and set by each successful SaveEntry. A save is
	// compare-and-set on it: saving an entry read at a version that is no
	// longer the stored one (another replica, or another write, saved the
	// entry since) fails with ErrConflict and changes nothing; the caller
	// reads the entry again and redoes its change on fresh state.
	Version int64

	State             EntryState
	StateReason       Reason
	StateReasonDetail string
	StateChangedAt    time.Time

	PriorityValue           int
	PriorityName            string
	UsedDefaultPriorityName bool
	NoBatch                 bool
	// Direct skips the readiness wait (admin `--direct`).
	Direct bool

	// Submitter is the GitHub login that submitted the entry (commenter,
	// labeller, or PR author for API submissions). Source is "comment",
	// "label" or "api".
	Submitter string
	Source    string

	SubmittedAt time.Time
	AdmittedAt  time.Time // zero while not_ready
	ConcludedAt time.Time // zero while active
	// Seq orders admitted entries of equal priority (lower first).
	Seq int64
	// Position freezes the entry's place once its tests start: entries with
	// a Position come first, in Position order, and a higher priority no
	// longer overtakes them (only urgent pre-empts). Zero while open.
	Position int64
	// Vouched marks an entry whose own run failed but which a later passing
	// run containing it vouched for (canOptimisticallyMerge).
	Vouched bool
	// Isolation runs (Settings.IsolationRuns): the entry's isolation run
	// ("" or a closed run: none), how many of them failed, whether one
	// passed, and whether a chain failure was already retried on its word.
	IsolationRunID    string
	IsolationFailures int
	IsolationPassed   bool
	FlakeRetried      bool
	// ChecksMissing counts the entry's runs in a row whose required checks
	// never started (checksStartTimeoutMinutes): the first is tested once
	// more; the second pauses the queue and sets it back to 0.
	ChecksMissing int
	// CheckAttempts counts the runs of the entry that failed on a check and
	// were tried again (Settings.CheckRetries); CheckRetryLog holds their
	// failures, for the detail of the attempt that decides. Both are
	// cleared when the entry ends.
	CheckAttempts int
	CheckRetryLog string

	// RunID is the test run currently testing the entry ("" if none).
	RunID string
	// BlockedBy is the ID of an entry ahead that this entry's PR conflicts
	// with; while that entry is active, this one waits (SPEC §5.9).
	BlockedBy string
	// MergeIntent is set before the merge call and cleared after, so a crash
	// in between is resolved by reading the PR back from GitHub.
	MergeIntent bool
	// MergeBase is the target head the intended merge was to land on.
	MergeBase string
	// MergeAttempts counts transient merge failures ("base branch was
	// modified") for bounded retry; NextAttemptAt delays the next one.
	MergeAttempts int
	NextAttemptAt time.Time
	// Restarts counts how often the entry's tests were restarted.
	Restarts int

	// PRCheckedAt is when the queue last read the PR from GitHub itself
	// (webhook facts do not count): a final decision waits for a fresh
	// read, so a PR merged, closed or pushed whose webhook is late ends for
	// that reason instead.
	PRCheckedAt time.Time
	// DirectBase is the target head the entry was last checked for a
	// direct merge on ("" never), and DirectContains whether its head
	// contained it then (directMergeMode always, SPEC §5.8).
	DirectBase     string
	DirectContains bool
	// Conflict records that building the entry's test branch conflicted,
	// and once probed with what (SPEC §5.9); nil when none is pending.
	Conflict *Conflict
	// CancelReason and CancelDetail hold a cancellation asked for while a
	// merge of the entry was in flight: it applies once the merge is
	// settled (and not at all if the PR merged).
	CancelReason Reason
	CancelDetail string
}

// Conflict is a failed build of an entry's test branch: its PR did not
// merge cleanly onto Base plus the entries of Before. Probing then tells
// whether it conflicts with the target branch alone or, on its own, with
// one of Before (SPEC §5.9).
type Conflict struct {
	// Base is the target head the build started from; Before the entries
	// merged ahead of the PR in that build, in order; At when it failed.
	Base   string
	Before []string
	At     time.Time
	// Probed is set once the probe ran; Alone says the PR conflicts with
	// the target branch alone; With is the nearest entry of Before it
	// conflicts with on its own ("" if none was found).
	Probed bool
	Alone  bool
	With   string
}

// Active reports whether the entry is still in the queue.
func (e *Entry) Active() bool { return !e.State.Terminal() }

// Admitted reports whether the entry has a place in the queue order.
func (e *Entry) Admitted() bool { return e.Active() && e.State != StateNotReady }

// Targets are the impacted targets of a PR for a queue, uploaded for one
// head SHA (they may arrive before the PR is submitted). All marks "impacts
// every target"; an empty List impacts nothing.
type Targets struct {
	QueueID   int64
	PRNumber  int
	SHA       string
	All       bool
	List      []string
	UpdatedAt time.Time
	// Source is who uploaded them: TargetsFromToken or TargetsFromForkRun
	// ("" in targets stored before it was kept, which count as a token's).
	Source TargetsSource
}

// TargetsSource is the credential an impacted-targets upload came with.
type TargetsSource string

const (
	// TargetsFromToken marks targets uploaded with an API token.
	TargetsFromToken TargetsSource = "token"
	// TargetsFromForkRun marks targets uploaded by the CI run of a PR from a fork,
	// vouched for by GitHub (x-forked-workflow-run-id). Such an upload
	// never replaces a token's targets for the same head SHA.
	TargetsFromForkRun TargetsSource = "fork_run"
)

// Event is one recorded state change of an entry: the history behind
// "always say why", metrics over the last hour, and the dashboard.
type Event struct {
	ID       int64
	QueueID  int64
	EntryID  string
	PRNumber int
	At       time.Time
	From     EntryState // "" for a submission of a new entry
	To       EntryState
	Reason   Reason
	Detail   string
	RunID    string
}

// EntryQuery selects entries for listing, newest first by ActivityAt
// (ConcludedAt for ended entries, else SubmittedAt), then ID.
type EntryQuery struct {
	QueueID int64
	States  []EntryState // empty = every state
	Since   time.Time    // ActivityAt ≥ Since (zero = unbounded)
	Until   time.Time    // ActivityAt < Until (zero = unbounded)
	// Author keeps entries whose PR author is this login, compared
	// case-insensitively as GitHub logins are ("" = every author).
	Author string
	// After continues a listing: only entries strictly after this position
	// in the order (ActivityAt descending, then ID descending).
	AfterAt time.Time
	AfterID string
	Limit   int
}

// ActivityAt is the time an entry is listed under: when it ended, or when
// it was submitted while active.
func (e *Entry) ActivityAt() time.Time {
	if !e.ConcludedAt.IsZero() {
		return e.ConcludedAt
	}
	return e.SubmittedAt
}
