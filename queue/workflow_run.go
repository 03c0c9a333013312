package queue

// WorkflowRun is a GitHub Actions run as GitHub reports it (GET
// actions/runs/{id}), reduced to what tells whose run it is: the forked
// run credential (x-forked-workflow-run-id) is accepted only from the own
// pull_request run of a PR from a fork.
type WorkflowRun struct {
	ID int64
	// Status is queued, in_progress, completed, waiting, requested or
	// pending.
	Status string
	// Event is what triggered the run: pull_request, pull_request_target,
	// push, workflow_dispatch, …
	Event string
	// HeadSHA and HeadBranch are the commit and branch the run runs on. For
	// a pull_request run they are the PR's head commit and head branch (in
	// HeadRepo).
	HeadSHA    string
	HeadBranch string
	// HeadRepo is the full name ("owner/name") of head_repository: the
	// repository HeadBranch lives in, a fork for a PR from a fork; "" when
	// GitHub omits it.
	HeadRepo string
	// PullRequests are the numbers of GitHub's pull_requests list. GitHub
	// lists only PRs whose head is in the repository itself: it is empty
	// for the run of a PR from a fork.
	PullRequests []int
}
