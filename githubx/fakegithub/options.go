package fakegithub

import (
	"crypto/rsa"
	"net"
)

// Delete as a value in a files map removes the path from the tree.
const Delete = "\x00delete"

// BotLogin is the login of the bot user of the App New installs; actions
// performed through the API by its installation tokens are attributed to
// it. (An App created by the manifest flow acts as "<its slug>[bot]".)
const BotLogin = "merge-queue[bot]"

// AppSlug is the slug the fake reports on GET /app for the App New installs.
const AppSlug = "merge-queue"

// Options configure a Server. The zero value is usable: it generates an App
// key pair, uses installation id 1 and a temporary directory.
type Options struct {
	// Addr, if set, is the TCP address to listen on (e.g. "127.0.0.1:3001");
	// "" means a random loopback port.
	Addr string
	// Listener, if set, is used instead of Addr.
	Listener net.Listener
	// Dir holds the bare repositories. "" means a temporary directory that
	// Close removes.
	Dir string

	// AppID is the GitHub App id JWTs must carry as "iss" (default 1).
	AppID int64
	// AppPublicKey verifies App JWTs. nil means New generates a key pair;
	// its private key is then available from Server.AppPrivateKeyPEM.
	AppPublicKey *rsa.PublicKey
	// InstallationID is the id of the single installation that covers every
	// repository (default 1).
	InstallationID int64

	// WebhookURL receives the webhooks ("" until SetWebhookURL).
	WebhookURL string
	// WebhookSecret signs the webhooks (X-Hub-Signature-256).
	WebhookSecret string

	// CI configures the simulated CI.
	CI CIOptions

	// Limits, if set, are the secondary rate limits enforced on each
	// installation (see SecondaryLimits; SetSecondaryLimits changes them).
	Limits *SecondaryLimits
}

// CIOptions configure the simulated CI that runs on `mq-merge/**` branches.
type CIOptions struct {
	// Disabled turns the simulated CI off.
	Disabled bool
	// Contexts are the commit status contexts posted per run. nil with no
	// CheckRuns means ["ci/test"]; an empty non-nil slice posts none.
	Contexts []string
	// CheckRuns are check run names posted per run (by a separate CI app).
	CheckRuns []string
	// FailIf decides failure from the commit's files (path → content). nil
	// means: fail if the tree has a file named FAIL at its root.
	FailIf func(files map[string]string) bool
	// AtPush, if set, is called with each run as the push that starts it
	// happens, before the push is answered: a CI that starts at once and,
	// say, asks the queue what it tests. It runs with the repository
	// locked, so it must not call the fake GitHub.
	AtPush func(run CIRun)
	// Silent, if set, picks pushes the CI ignores: it starts no run for
	// them and reports nothing (a CI that never starts).
	Silent func(branch, sha string) bool
	// Actions makes the CI GitHub Actions: its check runs (CheckRuns) are
	// jobs of a workflow run (one per CI run, in the check suite of the
	// github-actions App) that rerun-failed-jobs can run again. Without
	// it they come from a separate CI App whose suite can be re-requested.
	Actions bool
	// FailAttempt, if set, fails an attempt of a run whatever its tree
	// when it returns true (a flaky job: fail attempt 1, pass on re-run).
	FailAttempt func(run CIRun) bool
}

// Fault makes the next Times requests that match Method and PathContains
// fail with Status.
type Fault struct {
	// Method matches the HTTP method ("" = any).
	Method string
	// PathContains matches a substring of the path without the /api/v3
	// prefix ("" = any).
	PathContains string
	// Status is the HTTP status to answer (e.g. 502, 429, 403, 405).
	Status int
	// RetryAfter, if > 0, is sent as the Retry-After header (secondary rate
	// limit shape for 403/429). A 403 with RetryAfter 0 is a primary rate
	// limit: x-ratelimit-remaining: 0.
	RetryAfter int
	// Times is how many matching requests fail (0 means 1; < 0 forever).
	Times int
	// ApplyThenFail performs the request and then answers the error anyway.
	ApplyThenFail bool
	// Message overrides the error message (default depends on Status and
	// route, e.g. 405 on a PR merge is "Base branch was modified. …").
	Message string
}

// CIRun is one run of the simulated CI.
type CIRun struct {
	ID     int64
	Repo   string // "owner/name"
	Branch string
	SHA    string
	// Result is "" while pending, then "success" or "failure".
	Result string
	// Attempt is 1 for the run the push started, then one more per re-run
	// of its failed jobs or re-request of its check suite.
	Attempt int
}

// DeliveryRecord is one attempted webhook delivery.
type DeliveryRecord struct {
	Event      string
	Action     string
	ID         string // X-GitHub-Delivery
	StatusCode int    // 0 if the request failed
	Err        string // "" on a 2xx
	Payload    []byte
}

// PROptions describe a pull request opened with OpenPR.
type PROptions struct {
	Head   string // head branch (must exist)
	Base   string // default "main"
	Title  string // default "Update <head>"
	Body   string
	Author string // default "octocat"
	Draft  bool
	// HeadRepo, when set, makes the PR one from a fork: "owner/name" of the
	// fork its head branch is reported in (head.repo, head.label). The
	// branch itself lives in the repository, as a fork PR's head is
	// fetchable there on GitHub.
	HeadRepo string
}

// WorkflowRun is a GitHub Actions run served on
// GET /repos/{owner}/{repo}/actions/runs/{id}.
type WorkflowRun struct {
	ID         int64
	Name       string
	HeadBranch string
	HeadSHA    string
	Status     string // queued, in_progress, completed
	Conclusion string // when completed
	Event      string // default "push"; a fork PR's own run is "pull_request"
	// HeadRepo is "owner/name" of the head repository (a fork for a fork
	// PR's run); "" is the repository itself.
	HeadRepo string
	// PullRequests are the numbers listed in pull_requests (GitHub lists
	// none for a PR from a fork).
	PullRequests []int
	// CheckSuiteID is the check suite of its jobs (0: none).
	CheckSuiteID int64
}
