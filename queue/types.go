package queue

import (
	"fmt"
	"strings"
	"time"
)

// Repo identifies a repository on a GitHub host.
type Repo struct {
	Host  string // e.g. "github.com"
	Owner string
	Name  string
}

// FullName is "owner/name".
func (r Repo) FullName() string { return r.Owner + "/" + r.Name }

func (r Repo) String() string { return r.Host + "/" + r.Owner + "/" + r.Name }

// Fold is the repository in lower case. GitHub compares host, owner and
// repository names case-insensitively (a queue created as "Org/Repo" over
// REST receives webhooks for "org/repo" and the other way round), so
// stores match repositories on their folded form; branch names stay
// case-sensitive, as in git.
func (r Repo) Fold() Repo {
	return Repo{Host: strings.ToLower(r.Host), Owner: strings.ToLower(r.Owner), Name: strings.ToLower(r.Name)}
}

// QueueKey identifies a queue: one target branch of one repository.
type QueueKey struct {
	Repo   Repo
	Branch string
}

func (k QueueKey) String() string { return k.Repo.String() + ":" + k.Branch }

// Fold is the key with its repository folded (see Repo.Fold).
func (k QueueKey) Fold() QueueKey { return QueueKey{Repo: k.Repo.Fold(), Branch: k.Branch} }

// QueueState is the state of a queue (SPEC §4). Lower-case wire values.
type QueueState string

const (
	QueueRunning        QueueState = "running"
	QueuePaused         QueueState = "paused"
	QueueDraining       QueueState = "draining"
	QueueSwitchingModes QueueState = "switching_modes"
)

// Mode is the queue's testing mode.
type Mode string

const (
	ModeSingle   Mode = "single"
	ModeParallel Mode = "parallel"
)

// MergeMethod is the git strategy used to merge a PR into the target branch.
type MergeMethod string

const (
	MergeCommit MergeMethod = "merge_commit"
	Squash      MergeMethod = "squash"
	Rebase      MergeMethod = "rebase"
)

// DirectMergeMode controls whether an up-to-date PR may skip the test run.
type DirectMergeMode string

const (
	DirectMergeOff    DirectMergeMode = "off"
	DirectMergeAlways DirectMergeMode = "always"
)

// OptimizationMode controls bisection optimisations.
type OptimizationMode string

const (
	OptimizationOff                OptimizationMode = "off"
	OptimizationBisectionSkipTests OptimizationMode = "bisection_skip_redundant_tests"
)

// TestBranchConstructionMode is how a run's test branch is built. The one
// mode is the hosted API's rename_temp_branch: the merges are made on a
// scratch branch (ScratchPrefix) and the test branch is created only at the
// finished commit, so CI sees one push of a complete tree (SPEC §6).
type TestBranchConstructionMode string

const (
	RenameTempBranch TestBranchConstructionMode = "rename_temp_branch"
)

// ParseEnum matches s case-insensitively against allowed and returns the
// canonical (lower-case) value, or an error naming the allowed values.
func ParseEnum[T ~string](field, s string, allowed ...T) (T, error) {
	for _, a := range allowed {
		if strings.EqualFold(s, string(a)) {
			return a, nil
		}
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	var zero T
	return zero, fmt.Errorf("%s: %q is not one of %s", field, s, strings.Join(names, ", "))
}

// Settings are a queue's configuration (seed §2.3 plus SPEC §7 extensions).
type Settings struct {
	Mode                        Mode
	Concurrency                 int
	TestingTimeoutMinutes       int
	CanOptimisticallyMerge      bool
	PendingFailureDepth         int
	Batch                       bool
	BatchingMaxWaitTimeMinutes  int
	BatchingMinSize             int
	BatchingMaxSize             int // 0 = follows BatchingMinSize
	CreatePrsForTestingBranches bool
	CommentsEnabled             bool
	CommandsEnabled             bool
	StatusCheckEnabled          bool
	BisectionConcurrency        int // 0 = follows Concurrency until set explicitly
	// RequiredStatuses: nil = use branch protection; empty = explicitly none.
	RequiredStatuses     []string
	DirectMergeMode      DirectMergeMode
	OptimizationMode     OptimizationMode
	MergeMethod          MergeMethod
	EnqueueingLabel      string
	LabelCommandsEnabled bool
	StateLabelsEnabled   bool
	ExtensionEnabled     bool
	NotReadyTimeoutHours int
	// BisectionParts is how many parts a failed batch is split into, in
	// order, each tested on top of the previous (our extension; 0 = 2, the
	// halves of SPEC §5.4). More parts find a culprit in fewer rounds.
	BisectionParts int
	// TestBranchConstructionMode is how test branches are built ("" =
	// RenameTempBranch, the only mode).
	TestBranchConstructionMode TestBranchConstructionMode
	// AllowedBotSubmitters are the bot accounts (e.g. "renovate[bot]")
	// allowed to submit pull requests, as the hosted API names them; nil
	// or empty = none. Stored and shown; see docs/decisions.md for what
	// enforces it.
	AllowedBotSubmitters []string
	// TestBranchPrefix starts the names of the queue's test branches,
	// <prefix>pr-<N>/<testRunId> ("" = DefaultTestBranchPrefix). CI must
	// run on branches under it.
	TestBranchPrefix string
	// IsolationRuns (our extension, off by default) also tests each
	// admitted PR alone on the target head, beside the speculative chain:
	// a PR failing alone twice leaves the queue, and one that passed alone
	// is tested again once when its chain run fails as if by a flake
	// (docs/decisions.md).
	IsolationRuns bool
}

// DefaultSettings are the settings of a new queue (SPEC §7).
func DefaultSettings() Settings {
	return Settings{
		Mode:                       ModeSingle,
		Concurrency:                1,
		TestingTimeoutMinutes:      60,
		BatchingMaxWaitTimeMinutes: 5,
		BatchingMinSize:            4,
		CommentsEnabled:            true,
		CommandsEnabled:            true,
		StatusCheckEnabled:         true,
		DirectMergeMode:            DirectMergeOff,
		OptimizationMode:           OptimizationOff,
		MergeMethod:                Squash,
		EnqueueingLabel:            "merge-queue",
		LabelCommandsEnabled:       true,
		ExtensionEnabled:           true,
	}
}

// EffectiveBisectionConcurrency is BisectionConcurrency, or Concurrency when unset.
func (s Settings) EffectiveBisectionConcurrency() int {
	if s.BisectionConcurrency > 0 {
		return s.BisectionConcurrency
	}
	return s.Concurrency
}

// EffectiveBisectionParts is BisectionParts, or 2 (halves) when unset.
func (s Settings) EffectiveBisectionParts() int {
	if s.BisectionParts >= 2 {
		return s.BisectionParts
	}
	return 2
}

// EffectiveTestBranchConstructionMode is TestBranchConstructionMode, or
// RenameTempBranch when unset.
func (s Settings) EffectiveTestBranchConstructionMode() TestBranchConstructionMode {
	if s.TestBranchConstructionMode == "" {
		return RenameTempBranch
	}
	return s.TestBranchConstructionMode
}

// EffectiveTestBranchPrefix is TestBranchPrefix, or DefaultTestBranchPrefix
// when unset.
func (s Settings) EffectiveTestBranchPrefix() string {
	if s.TestBranchPrefix == "" {
		return DefaultTestBranchPrefix
	}
	return s.TestBranchPrefix
}

// EffectiveBatchingMaxSize is BatchingMaxSize, or BatchingMinSize when unset.
func (s Settings) EffectiveBatchingMaxSize() int {
	if s.BatchingMaxSize > 0 {
		return s.BatchingMaxSize
	}
	return s.BatchingMinSize
}

// Queue is one merge queue and its durable state.
type Queue struct {
	ID        int64
	Key       QueueKey
	State     QueueState
	Settings  Settings
	CreatedAt time.Time
	UpdatedAt time.Time
	// NextSeq orders admissions: each admitted entry takes the next value.
	NextSeq int64
	// PausedReason explains a pause the queue decided itself (e.g. a landed
	// tree that differs from the tested tree); empty when paused by a user.
	PausedReason string
	// PendingMode is the mode the queue switches to once no run is testing
	// (state switching_modes); ResumeState is the state it returns to then.
	PendingMode Mode
	ResumeState QueueState
}

// EffectiveMode is the mode the queue reports: the pending mode while it
// switches (so a client reads back what it set), else its mode.
func (q *Queue) EffectiveMode() Mode {
	if q.PendingMode != "" {
		return q.PendingMode
	}
	return q.Settings.Mode
}

// Admits reports whether the queue admits new entries (SPEC §4).
func (q *Queue) Admits() bool { return q.State == QueueRunning }

// StartsRuns reports whether the queue starts new test runs.
func (q *Queue) StartsRuns() bool { return q.State == QueueRunning || q.State == QueueDraining }

// Merges reports whether the queue merges entries whose tests passed: not
// while paused, nor while switching modes from a pause (it returns to
// paused once the runs in progress end).
func (q *Queue) Merges() bool {
	return q.State != QueuePaused && !(q.State == QueueSwitchingModes && q.ResumeState == QueuePaused)
}
