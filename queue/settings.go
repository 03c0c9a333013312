package queue

import (
	"errors"
	"fmt"
	"strings"
)

// MaxBotSubmitters bounds AllowedBotSubmitters.
const MaxBotSubmitters = 100

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
	case s.Concurrency < 1 || s.Concurrency > 1000:
		return Inputf("concurrency must be between 1 and 1000, got %d", s.Concurrency)
	case s.TestingTimeoutMinutes < 0:
		return Inputf("testingTimeoutMinutes must not be negative")
	case s.PendingFailureDepth < 0:
		return Inputf("pendingFailureDepth must not be negative")
	case s.BatchingMaxWaitTimeMinutes < 0:
		return Inputf("batchingMaxWaitTimeMinutes must not be negative")
	case s.BatchingMinSize < 1:
		return Inputf("batchingMinSize must be at least 1")
	case s.BatchingMaxSize != 0 && s.BatchingMaxSize < s.BatchingMinSize:
		return Inputf("batchingMaxSize must be at least batchingMinSize")
	case s.BisectionConcurrency < 0:
		return Inputf("bisectionConcurrency must not be negative")
	case s.NotReadyTimeoutHours < 0:
		return Inputf("notReadyTimeoutHours must not be negative")
	case s.BisectionParts != 0 && (s.BisectionParts < 2 || s.BisectionParts > 100):
		return Inputf("bisectionParts must be between 2 and 100, got %d", s.BisectionParts)
	}
	return nil
}

// validateBotSubmitters checks AllowedBotSubmitters: at most
// MaxBotSubmitters GitHub logins (ValidateOwner's rule), each optionally
// ending in "[bot]" as GitHub Apps' logins do, none twice (logins compare
// case-insensitively).
func validateBotSubmitters(logins []string) error {
	if len(logins) > MaxBotSubmitters {
		return Inputf("allowedBotSubmitters must hold at most %d logins, got %d", MaxBotSubmitters, len(logins))
	}
	seen := map[string]int{}
	for i, login := range logins {
		field := fmt.Sprintf("allowedBotSubmitters[%d]", i)
		if err := ValidateOwner(strings.TrimSuffix(login, "[bot]")); err != nil {
			rule := "must be a GitHub login, optionally ending in [bot]"
			var ne *NameError
			if errors.As(err, &ne) {
				rule = ne.Rule + ", optionally followed by [bot]"
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
