package queue

import "time"

// Surface is the queue's record of what GitHub shows for one entry: the
// sticky status comment, the "Merge Queue (<branch>)" check run on the PR
// head and the state label. The entry itself is the desired state. Want is
// bumped in the same transaction as every change GitHub must show; the
// reconciler brings GitHub up to the entry and records the Want it served
// as Done, so a crash, a restart or a GitHub outage only delays the update.
type Surface struct {
	EntryID string
	QueueID int64
	// Want counts the changes GitHub must show; Done is the Want the
	// reconciler last brought GitHub up to. Due while Want > Done.
	Want, Done int64

	// CommentID is the sticky comment (0 until found or created);
	// CommentHash is the hash of the body last written.
	CommentID   int64
	CommentHash string
	// CheckRunID is the check run on CheckRunSHA (0 until found or
	// created); CheckRunHash is the hash of what was last written, and
	// CheckRunOpen says whether it was left queued or in progress.
	CheckRunID   int64
	CheckRunSHA  string
	CheckRunHash string
	CheckRunOpen bool
	// StateLabel is the state label on the PR ("" = none).
	StateLabel string
	// CommentCreating and CheckRunCreating are set before a create whose
	// result may not get recorded (a crash, an ambiguous 5xx): the
	// reconciler then looks on GitHub before it creates again.
	CommentCreating  bool
	CheckRunCreating bool

	// WrittenAt is when the surfaces were last written: a change of
	// position or ETA alone is written at most once per refresh interval.
	WrittenAt time.Time

	// Attempts counts failed reconciliations since the last success;
	// NextAttemptAt delays the next one; LastError says why it failed.
	Attempts      int
	NextAttemptAt time.Time
	LastError     string
}

// Due reports whether GitHub is behind the entry.
func (s *Surface) Due() bool { return s.Want > s.Done }

// RunSurface is the queue's record of a run's draft test PR
// (createPrsForTestingBranches, SPEC §6): Want is bumped when the run
// starts and when it ends; the reconciler opens the PR while the run is
// open and closes it once the run is closed, and records Done.
type RunSurface struct {
	RunID      string
	QueueID    int64
	Want, Done int64
	// PRNumber is the test PR (0 until found or opened); PRHash the hash of
	// the title and body last written.
	PRNumber int
	PRHash   string
	// Creating is set before the PR is opened, so a lost answer is looked
	// up (by its head branch) instead of opening a second one.
	Creating bool
	// Closed says the PR was closed.
	Closed bool

	Attempts      int
	NextAttemptAt time.Time
	LastError     string
}

// Due reports whether GitHub is behind the run.
func (s *RunSurface) Due() bool { return s.Want > s.Done }

// NoticeKind is what a Notice does on a pull request.
type NoticeKind string

const (
	// NoticeComment posts a new comment (Body).
	NoticeComment NoticeKind = "comment"
	// NoticeReaction reacts with Body ("+1", "eyes", …) to CommentID.
	NoticeReaction NoticeKind = "reaction"
	// NoticeRemoveLabel removes the label Body from the PR.
	NoticeRemoveLabel NoticeKind = "remove_label"
)

// Notice is a one-off write to a pull request: a reply to a command, a
// comment mentioning the submitter of a failed entry, an alert, a reaction
// or the removal of the enqueue label. Notices are stored durably (in the
// transaction of the change that causes them) and delivered by the
// reconciler, at least once on GitHub's side and at most once in effect:
// Key makes adding idempotent (a webhook processed twice replies once), and
// a comment carries a marker the reconciler looks for before posting again
// after an attempt whose outcome is unknown.
type Notice struct {
	ID       int64
	Key      string
	Repo     Repo
	PRNumber int
	Kind     NoticeKind
	// Body is the comment, the reaction's content or the label.
	Body string
	// CommentID is the comment a reaction is on.
	CommentID int64
	CreatedAt time.Time

	// Attempted is set before the first write: a comment may then be on
	// GitHub already, so the reconciler looks for its marker first.
	Attempted     bool
	Attempts      int
	NextAttemptAt time.Time
	LastError     string
	// DoneAt is when the notice was delivered (or given up: LastError).
	DoneAt time.Time
}

// NoticeMarker is the invisible line that identifies a notice's comment.
func NoticeMarker(key string) string { return "<!-- merge-queue-notice " + key + " -->" }

// Ref is a git branch the queue creates: a scratch branch (mq-temp/…) or a
// test branch (mq-merge/…). It is recorded before it is created, so every
// branch the queue ever made can be found and deleted once no live run
// owns it, whatever crash happened in between.
type Ref struct {
	Repo Repo
	// Name is the branch name, e.g. "mq-temp/<uuid>".
	Name    string
	QueueID int64
	// RunID is the run the branch belongs to ("" for the scratch branches
	// of conflict probes, which live only while their probe runs).
	RunID     string
	CreatedAt time.Time
}

// ScratchPrefix starts the names of the scratch branches the queue
// creates (SPEC §6); test branches start with a queue's TestBranchPrefix
// (DefaultTestBranchPrefix).
const ScratchPrefix = "mq-temp/"
