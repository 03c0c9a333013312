package queue

import (
	"fmt"
	"strings"
	"time"
)

// DefaultHost is the GitHub host of a repository when none is configured:
// github.com, as opposed to a GitHub Enterprise server's host.
const DefaultHost = "github.com"

// Repo identifies a repository on a GitHub host.
type Repo struct {
	Host  string // e.g. DefaultHost
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

// The enum types of the settings (Mode, MergeMethod, …), Settings,
// DefaultSettings, QueueUpdate, ApplySettings and Validate are generated
// from the declaration of the settings (queue/settingdecl) into
// settings_gen.go.

// EffectiveBisectionConcurrency is BisectionConcurrency, or Concurrency
// when unset (a queue stores it at creation: WithCreationDefaults).
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

// SettledState is the state the queue reports to a client that just
// changed it: while it switches modes, the state it returns to once the
// runs in progress are done (ResumeState; running when none), else its
// state. A client that sent a mode change reads back the state it asked
// for (SPEC §7); getQueue shows switching_modes meanwhile.
func (q *Queue) SettledState() QueueState {
	if q.State != QueueSwitchingModes {
		return q.State
	}
	if q.ResumeState == "" || q.ResumeState == QueueSwitchingModes {
		return QueueRunning
	}
	return q.ResumeState
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
