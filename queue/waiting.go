package queue

import "time"

// WaitReason says, for machines, what an active entry waits for now.
type WaitReason string

// What an active entry can wait for (getSubmittedPullRequest's waitingFor).
const (
	WaitReadiness       WaitReason = "readiness"        // not_ready: a readiness condition (the detail names it)
	WaitQueuePaused     WaitReason = "queue_paused"     // the queue is paused (by a user, or by itself)
	WaitQueueState      WaitReason = "queue_state"      // the queue admits nothing while draining or switching modes
	WaitConflict        WaitReason = "conflict"         // a PR ahead it conflicts with to leave the queue
	WaitTestSlot        WaitReason = "test_slot"        // every test slot is taken by the runs ahead
	WaitBatch           WaitReason = "batch"            // more PRs to fill its batch, or the batch wait
	WaitRunStart        WaitReason = "run_start"        // its test run to start (next step of the queue)
	WaitBuild           WaitReason = "build"            // its test branch to be built
	WaitChecksStart     WaitReason = "checks_start"     // a required check to report anything on its test commit
	WaitChecks          WaitReason = "checks"           // a required check, reported, to finish
	WaitPRsAhead        WaitReason = "prs_ahead"        // the PRs ahead to merge first
	WaitMerge           WaitReason = "merge"            // its own merge (or a retry of it)
	WaitFailureDecision WaitReason = "failure_decision" // its failed run to be decided (pending_failure)
	WaitWriteBudget     WaitReason = "write_budget"     // its next step, a GitHub write, waits for the installation's write budget
)

// Waiting is what an active entry waits for right now, in words and as
// facts: a named check on a named commit since when, the PRs ahead, a
// paused queue, a readiness condition.
type Waiting struct {
	Reason WaitReason
	// Detail is the sentence a person reads, e.g. `required check
	// "ci/test" (in_progress) on 1a2b3c4 since 10:05 UTC`.
	Detail string
	// Since is when the wait began (zero when unknown).
	Since time.Time
	// Check and Commit name the check and the test commit it waits on
	// (checks, checks_start).
	Check, Commit string
	// PRs are the PR numbers it waits on (ahead, or it conflicts with).
	PRs []int
}
