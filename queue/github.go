package queue

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Errors the GitHub port returns (wrapped) where the queue must branch.
var (
	// ErrPRNotFound: the pull request does not exist.
	ErrPRNotFound = errors.New("pull request not found")
	// ErrBaseModified: GitHub's "Base branch was modified" (405): retry later.
	ErrBaseModified = errors.New("base branch was modified")
	// ErrHeadMoved: the PR head is not the SHA given to merge (409).
	ErrHeadMoved = errors.New("pull request head moved")
	// ErrTransient: a 5xx, timeout or rate limit; the outcome of a write is
	// unknown and must be read back before retrying.
	ErrTransient = errors.New("transient GitHub failure")
)

// RejectedError is a non-transient refusal (e.g. 405 "not mergeable",
// 422 validation) carrying GitHub's message for users.
type RejectedError struct {
	Status  int
	Message string
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("GitHub refused (%d): %s", e.Status, e.Message)
}

// ConflictError reports that merging Heads[Index] while building a branch
// conflicted.
type ConflictError struct {
	Index int
	SHA   string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("merge conflict merging %s", e.SHA)
}

// PullRequest is a pull request as read from GitHub (githubx/ghfacts
// makes it from a REST answer or a webhook payload alike).
type PullRequest struct {
	Number int
	// HeadRef is the PR's head branch (a test PR's head is a test branch).
	HeadRef string
	// HeadRepo is the full name ("owner/name") of the repository HeadRef
	// lives in: the repository itself, or a fork for a PR from a fork; ""
	// when GitHub does not say (a deleted fork).
	HeadRepo string
	PRFacts
}

// BranchSpec describes a test branch to build: start from From (a commit),
// merge each of Heads in order with a real merge commit, and publish the
// result as Name. Temp is the scratch ref used while assembling it.
type BranchSpec struct {
	From  string
	Heads []MergeHead
	Temp  string // e.g. "mq-temp/<uuid>", or a queue's lane (KeepTemp)
	Name  string // e.g. "mq-merge/pr-12/<testRunId>"
	// UnitSize is how many of the last Heads form the unit under test; the
	// heads before them are the PRs ahead it is tested on top of.
	UnitSize int
	// KeepTemp makes Temp a lane: a scratch ref the caller keeps between
	// builds (one per queue) instead of one created and deleted per build.
	// TempAt is where the caller last left it ("" = unknown): when it is
	// From, the ref is not moved before merging, so a chain of runs, each
	// built on the last, costs no ref write for its scratch.
	KeepTemp bool
	TempAt   string
	// Delete names ended branches to delete in the same request that
	// publishes Name, when the implementation can (Built.Deleted says
	// which it deleted); never a reason for the build to fail.
	Delete []string
	// Publishing, when set, is told the assembled commit before Name is
	// published, so that whatever the publish starts (CI asking which
	// commit it tests) finds the commit already recorded. An error stops
	// the build: nothing is published. Not called for a probe.
	Publishing func(ctx context.Context, sha string) error
}

// Built is what BuildBranch made: the published commit and its tree, and
// the branches of BranchSpec.Delete it deleted.
type Built struct {
	SHA     string
	Tree    string // "" when the implementation did not learn it
	Deleted []string
}

// MergeHead is one PR head merged into a test branch.
type MergeHead struct {
	PRNumber int
	SHA      string
	Message  string // merge commit message
}

// MergeRequest asks GitHub to merge a PR.
type MergeRequest struct {
	SHA    string // the tested head; GitHub refuses if the head moved
	Method MergeMethod
	Title  string // commit title; "" for GitHub's default
}

// CheckRunPrefix starts the name of every queue's own check run
// (CheckRunName); a check run so named is never a CI result.
const CheckRunPrefix = "Merge Queue ("

// CheckRunName is the name of the check run the queue of branch writes on
// the heads of its PRs: "Merge Queue (<branch>)".
func CheckRunName(branch string) string { return CheckRunPrefix + branch + ")" }

// CheckRun is the queue's own check run on a PR head.
type CheckRun struct {
	Name       string // CheckRunName
	HeadSHA    string
	Status     string // queued, in_progress, completed
	Conclusion string // success, failure, cancelled, neutral (when completed)
	Title      string
	Summary    string
	DetailsURL string
	// ExternalID identifies the check run as the queue's for one entry (its
	// ID), so it can be found again after a write whose result was lost.
	ExternalID string
}

// BranchBatchDeleter is an optional capability of a GitHub port: deleting
// many branches in one request (GitHub's GraphQL updateRefs), so that the
// clean-up of ended test branches costs one write, not one per branch.
type BranchBatchDeleter interface {
	// DeleteBranches deletes branches (a missing one is not an error) and
	// returns those it deleted; on an error, the others are left to try
	// again.
	DeleteBranches(ctx context.Context, repo Repo, names []string) ([]string, error)
}

// WriteHeadroom is an optional capability of a GitHub port: the share of
// an installation's write budget that is free now, from 0 (spent: writes
// wait) to 1 (nothing used in the current windows). The queue spends
// informational writes (a position, an ETA, testing having started) only
// when it is at least InformationalHeadroom, so a busy queue spends its
// budget on merges and on what a reader must know.
type WriteHeadroom interface {
	WriteHeadroom(repo Repo) float64
}

// WriteBudget is an optional capability of a GitHub port: whether the
// installation's write budget (GitHub's secondary limits, as the port
// keeps within them) holds its writes back now, so that the read side can
// say an entry waits for it.
type WriteBudget interface {
	// NextWriteAt returns when a write to repo may be sent at the earliest
	// and true when the budget holds writes back now (a full window, or a
	// pause GitHub asked for); false when a write would go now.
	NextWriteAt(repo Repo) (time.Time, bool)
}

// InformationalHeadroom is the free share of the write budget below which
// informational surface writes are skipped (see WriteHeadroom).
const InformationalHeadroom = 0.5

// GitHub is everything the queue needs from GitHub. Reads are fresh (no
// cache) where merge decisions depend on them. Implementations classify
// errors with the variables above.
type GitHub interface {
	// GetPullRequest reads a PR (ErrPRNotFound if absent).
	GetPullRequest(ctx context.Context, repo Repo, number int) (*PullRequest, error)
	// BranchHead returns the commit SHA a branch points at.
	BranchHead(ctx context.Context, repo Repo, branch string) (string, error)
	// RequiredChecks returns the status checks branch protection requires on
	// branch (empty if unprotected or none required).
	RequiredChecks(ctx context.Context, repo Repo, branch string) ([]string, error)
	// BuildBranch builds and publishes a test branch, returning its commit.
	// A conflict is a *ConflictError (nothing is published). The scratch
	// ref is deleted in every case, unless spec.KeepTemp.
	BuildBranch(ctx context.Context, repo Repo, spec BranchSpec) (Built, error)
	// DeleteBranch deletes a branch; deleting a missing one is not an error.
	DeleteBranch(ctx context.Context, repo Repo, name string) error
	// Checks returns the commit statuses and check runs on a commit.
	Checks(ctx context.Context, repo Repo, sha string) ([]CheckResult, error)
	// TreeSHA returns the tree of a commit.
	TreeSHA(ctx context.Context, repo Repo, sha string) (string, error)
	// MergePullRequest merges a PR and returns the resulting commit on the
	// target branch.
	MergePullRequest(ctx context.Context, repo Repo, number int, req MergeRequest) (string, error)

	// Permission returns the user's permission on repo: "admin",
	// "maintain", "write", "triage", "read" or "none".
	Permission(ctx context.Context, repo Repo, user string) (string, error)
	// UpsertComment edits comment id (if non-zero and present) or creates a
	// new comment on the PR; it returns the comment's id.
	UpsertComment(ctx context.Context, repo Repo, number int, id int64, body string) (int64, error)
	// AddReaction reacts to an issue comment (e.g. "+1", "eyes").
	AddReaction(ctx context.Context, repo Repo, commentID int64, content string) error
	// UpsertCheckRun updates check run id (if non-zero) or creates one; it
	// returns the check run's id.
	UpsertCheckRun(ctx context.Context, repo Repo, id int64, run CheckRun) (int64, error)

	// FindComment returns the id of the newest comment on PR number whose
	// body contains marker, among those updated at or after since (zero:
	// all); 0 if there is none.
	FindComment(ctx context.Context, repo Repo, number int, marker string, since time.Time) (int64, error)
	// FindCheckRun returns the id of the check run named name on commit sha
	// whose external id is externalID; 0 if there is none.
	FindCheckRun(ctx context.Context, repo Repo, sha, name, externalID string) (int64, error)
	// ListBranches returns the names of the branches that start with prefix.
	ListBranches(ctx context.Context, repo Repo, prefix string) ([]string, error)
}

// AncestryChecker is the optional part of the GitHub port that tells
// whether a commit contains another; direct merges need it.
type AncestryChecker interface {
	// Contains reports whether commit head contains commit ancestor.
	Contains(ctx context.Context, repo Repo, ancestor, head string) (bool, error)
}

// FileDiffer is the optional part of the GitHub port that lists changed
// files; parallel-mode landing checks need it.
type FileDiffer interface {
	// DiffFiles lists the files changed from the merge base of base and
	// head to head, with their blob SHA at head ("" if removed); complete
	// is false when the list may be cut short.
	DiffFiles(ctx context.Context, repo Repo, base, head string) (map[string]string, bool, error)
}

// WriteReserver is the optional part of the GitHub port that budgets its
// writes: a caller waits for the budget of a write before composing it, so
// that only the newest state is written when writes are scarce.
type WriteReserver interface {
	// ReserveSurfaceWrite waits until one write of a PR surface (comment,
	// check run, label) to repo may be sent; the first write made with the
	// returned context uses the reservation. release gives it back when
	// nothing was written; call it in every case.
	ReserveSurfaceWrite(ctx context.Context, repo Repo) (context.Context, func(), error)
}

// ErrRunNotConfirmed means GitHub did not confirm a forked workflow run as a
// credential (unknown run, finished run, another head SHA, or not the own
// pull_request run of a PR from a fork).
var ErrRunNotConfirmed = errors.New("workflow run not confirmed by GitHub")

// WorkflowRuns is the optional part of the GitHub port that reads GitHub
// Actions runs. A port without it confirms no forked workflow run.
type WorkflowRuns interface {
	// WorkflowRun reads a run of repo (WorkflowRun describes its fields).
	WorkflowRun(ctx context.Context, repo Repo, id int64) (*WorkflowRun, error)
}

// ErrRerunRefused means GitHub refused to re-run a check in place because
// the App lacks the permission (403 "Resource not accessible by
// integration": actions: write or checks: write not granted). The
// implementation remembers it per installation and refuses further re-runs
// there at once; the queue falls back to a new test commit.
var ErrRerunRefused = errors.New("re-running the check is not permitted to the App")

// CheckRerunner is the optional part of the GitHub port that re-runs a
// failed check run in place, on the same commit. A port without it (or a
// commit status, which cannot be re-requested) gets a new test commit.
type CheckRerunner interface {
	// RerunFailedCheck asks GitHub to run failed check run c again on its
	// commit: the failed jobs of its workflow run for a GitHub Actions
	// job (c.App is GitHubActionsApp), else its check suite re-requested.
	// The new runs of the check get new ids. ErrRerunRefused (wrapped)
	// when the App may not.
	RerunFailedCheck(ctx context.Context, repo Repo, c CheckResult) error
}

// TestPRWriter is the optional part of the GitHub port that opens and
// closes the draft test PRs of test runs (createPrsForTestingBranches,
// SPEC §6). A port without it opens none.
type TestPRWriter interface {
	// OpenDraftPR opens a draft PR of branch head into base; it returns the
	// PR's number.
	OpenDraftPR(ctx context.Context, repo Repo, head, base, title, body string) (int, error)
	// EditPR sets a PR's title and body.
	EditPR(ctx context.Context, repo Repo, number int, title, body string) error
	// ClosePR closes a PR; closing a closed one is not an error.
	ClosePR(ctx context.Context, repo Repo, number int) error
	// FindPRByHead returns the newest PR, open or closed, whose head is
	// branch head in repo itself; 0 if there is none.
	FindPRByHead(ctx context.Context, repo Repo, head string) (int, error)
}

// ChainCommit is a commit of a first-parent chain with its parents, first
// parent first.
type ChainCommit struct {
	SHA     string
	Parents []string
}

// ErrNotFastForward means the target branch was not moved because the update
// was not a fast-forward of its head (or the head was not the one given).
var ErrNotFastForward = errors.New("update is not a fast-forward")

// FastForwarder is the optional part of the GitHub port that lands a
// passed unit by moving the target branch to its tested commit
// (Settings.FastForwardLanding). A port without it merges PR by PR.
type FastForwarder interface {
	// FirstParents returns up to n commits of sha's first-parent chain,
	// sha first, each with its parents.
	FirstParents(ctx context.Context, repo Repo, sha string, n int) ([]ChainCommit, error)
	// FastForward moves branch from commit from to commit to without
	// force. A refusal (not a fast-forward: ErrNotFastForward; branch
	// protection or any other: a *RejectedError) moved nothing; an
	// ErrTransient leaves the outcome unknown, to be read back.
	FastForward(ctx context.Context, repo Repo, branch, from, to string) error
}
