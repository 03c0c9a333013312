package queue

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// MaxBotSubmitters bounds AllowedBotSubmitters.
const MaxBotSubmitters = 100

// Upper bounds of the numeric settings (Validate). Each is far above any
// useful value and far below what would overflow a time.Duration (about
// 292 years) or make a loop over the value expensive: a setting such as
// notReadyTimeoutHours 2562048 would otherwise wrap hours × time.Hour
// into a negative duration and cancel every waiting entry at once.
const (
	// MaxConcurrency bounds concurrency and bisectionConcurrency.
	MaxConcurrency = 1000
	// MaxTestingTimeoutMinutes is a week.
	MaxTestingTimeoutMinutes = 7 * 24 * 60
	// MaxPendingFailureDepth bounds pendingFailureDepth (successor runs,
	// so never more than the runs a queue can have at once).
	MaxPendingFailureDepth = MaxConcurrency
	// MaxBatchingMaxWaitTimeMinutes is a day.
	MaxBatchingMaxWaitTimeMinutes = 24 * 60
	// MaxBatchSize bounds batchingMinSize and batchingMaxSize.
	MaxBatchSize = 1000
	// MaxNotReadyTimeoutHours is a year.
	MaxNotReadyTimeoutHours = 365 * 24
	// MaxBisectionParts bounds bisectionParts.
	MaxBisectionParts = 100
)

// Validate checks settings; the error is an *InputError naming the field.
func (s Settings) Validate() error {
	if _, err := ParseEnum("mode", string(s.Mode), ModeSingle, ModeParallel); err != nil {
		return &InputError{Msg: err.Error()}
	}
	if _, err := ParseEnum("mergeMethod", string(s.MergeMethod), MergeCommit, Squash, Rebase); err != nil {
		return &InputError{Msg: err.Error()}
	}
	if _, err := ParseEnum("directMergeMode", string(s.DirectMergeMode), DirectMergeOff, DirectMergeAlways); err != nil {
		return &InputError{Msg: err.Error()}
	}
	if _, err := ParseEnum("optimizationMode", string(s.OptimizationMode), OptimizationOff, OptimizationBisectionSkipTests); err != nil {
		return &InputError{Msg: err.Error()}
	}
	if s.TestBranchConstructionMode != "" {
		if _, err := ParseEnum("testBranchConstructionMode", string(s.TestBranchConstructionMode), RenameTempBranch); err != nil {
			return &InputError{Msg: err.Error()}
		}
	}
	if s.TestBranchPrefix != "" {
		if err := ValidateTestBranchPrefix(s.TestBranchPrefix); err != nil {
			return err
		}
	}
	if err := validateBotSubmitters(s.AllowedBotSubmitters); err != nil {
		return err
	}
	switch {
	case s.Concurrency < 1 || s.Concurrency > MaxConcurrency:
		return Inputf("concurrency must be between 1 and %d, got %d", MaxConcurrency, s.Concurrency)
	case s.TestingTimeoutMinutes < 0 || s.TestingTimeoutMinutes > MaxTestingTimeoutMinutes:
		return Inputf("testingTimeoutMinutes must be between 0 and %d (a week), got %d", MaxTestingTimeoutMinutes, s.TestingTimeoutMinutes)
	case s.PendingFailureDepth < 0 || s.PendingFailureDepth > MaxPendingFailureDepth:
		return Inputf("pendingFailureDepth must be between 0 and %d, got %d", MaxPendingFailureDepth, s.PendingFailureDepth)
	case s.BatchingMaxWaitTimeMinutes < 0 || s.BatchingMaxWaitTimeMinutes > MaxBatchingMaxWaitTimeMinutes:
		return Inputf("batchingMaxWaitTimeMinutes must be between 0 and %d (a day), got %d", MaxBatchingMaxWaitTimeMinutes, s.BatchingMaxWaitTimeMinutes)
	case s.BatchingMinSize < 1 || s.BatchingMinSize > MaxBatchSize:
		return Inputf("batchingMinSize must be between 1 and %d, got %d", MaxBatchSize, s.BatchingMinSize)
	case s.BatchingMaxSize > MaxBatchSize:
		return Inputf("batchingMaxSize must be at most %d, got %d", MaxBatchSize, s.BatchingMaxSize)
	case s.BatchingMaxSize != 0 && s.BatchingMaxSize < s.BatchingMinSize:
		return Inputf("batchingMaxSize must be at least batchingMinSize")
	case s.BisectionConcurrency < 0:
		return Inputf("bisectionConcurrency must not be negative")
	case s.BisectionConcurrency > MaxConcurrency:
		return Inputf("bisectionConcurrency must be at most %d, got %d", MaxConcurrency, s.BisectionConcurrency)
	case s.NotReadyTimeoutHours < 0 || s.NotReadyTimeoutHours > MaxNotReadyTimeoutHours:
		return Inputf("notReadyTimeoutHours must be between 0 and %d (a year), got %d", MaxNotReadyTimeoutHours, s.NotReadyTimeoutHours)
	case s.BisectionParts != 0 && (s.BisectionParts < 2 || s.BisectionParts > MaxBisectionParts):
		return Inputf("bisectionParts must be between 2 and %d, got %d", MaxBisectionParts, s.BisectionParts)
	}
	return nil
}

// TestingTimeout is TestingTimeoutMinutes as a duration; 0 (none) when not
// positive. It saturates instead of overflowing, so a stored value above
// MaxTestingTimeoutMinutes (written before the bound existed) is merely a
// very long timeout.
func (s Settings) TestingTimeout() time.Duration {
	return saturatingDuration(s.TestingTimeoutMinutes, time.Minute)
}

// BatchingMaxWait is BatchingMaxWaitTimeMinutes as a duration (0 when not
// positive), saturating like TestingTimeout.
func (s Settings) BatchingMaxWait() time.Duration {
	return saturatingDuration(s.BatchingMaxWaitTimeMinutes, time.Minute)
}

// NotReadyTimeout is NotReadyTimeoutHours as a duration; 0 (never) when not
// positive, saturating like TestingTimeout.
func (s Settings) NotReadyTimeout() time.Duration {
	return saturatingDuration(s.NotReadyTimeoutHours, time.Hour)
}

// maxDuration is the longest time.Duration, about 292 years.
const maxDuration = time.Duration(1<<63 - 1)

// saturatingDuration is n × unit for a positive unit: 0 for n ≤ 0, and
// maxDuration when the product would overflow.
func saturatingDuration(n int, unit time.Duration) time.Duration {
	if n <= 0 {
		return 0
	}
	if int64(n) > int64(maxDuration/unit) {
		return maxDuration
	}
	return time.Duration(n) * unit
}

// validateBotSubmitters checks AllowedBotSubmitters: at most
// MaxBotSubmitters bot logins, each a GitHub login (ValidateOwner's rule)
// followed by "[bot]" as GitHub Apps' logins are, none twice (logins
// compare case-insensitively). A login without "[bot]" is refused: the
// list exempts its members from the permission check, which only a bot
// account (which cannot be a collaborator) needs; a person or a machine
// user is given write access instead.
func validateBotSubmitters(logins []string) error {
	if len(logins) > MaxBotSubmitters {
		return Inputf("allowedBotSubmitters must hold at most %d logins, got %d", MaxBotSubmitters, len(logins))
	}
	seen := map[string]int{}
	for i, login := range logins {
		field := fmt.Sprintf("allowedBotSubmitters[%d]", i)
		name, ok := cutBotSuffix(login)
		if !ok && login != "" {
			return &InputError{Msg: (&NameError{Field: field, Value: login,
				Rule: "must be a bot login ending in [bot], such as renovate[bot] (a person or machine user needs write access instead)"}).Error()}
		}
		if err := ValidateOwner(name); err != nil {
			rule := "must be a GitHub login followed by [bot]"
			var ne *NameError
			if errors.As(err, &ne) {
				rule = ne.Rule + ", followed by [bot]"
			}
			return &InputError{Msg: (&NameError{Field: field, Value: login, Rule: rule}).Error()}
		}
		key := strings.ToLower(login)
		if j, dup := seen[key]; dup {
			return Inputf("invalid field %s: %q repeats allowedBotSubmitters[%d]", field, login, j)
		}
		seen[key] = i
	}
	return nil
}

// cutBotSuffix returns login without its "[bot]" suffix (in any case) and
// whether it had one.
func cutBotSuffix(login string) (string, bool) {
	const suffix = "[bot]"
	if len(login) >= len(suffix) && strings.EqualFold(login[len(login)-len(suffix):], suffix) {
		return login[:len(login)-len(suffix)], true
	}
	return login, false
}
