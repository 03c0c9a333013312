package queue

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// MaxBotSubmitters bounds AllowedBotSubmitters.
const MaxBotSubmitters = 100

// checkRequiredStatuses (the WriteCheck of requiredStatuses): names GitHub
// can report, none blank.
func checkRequiredStatuses(names []string) error {
	for i, name := range names {
		if strings.TrimSpace(name) == "" {
			return Inputf("requiredStatuses[%d] must be a non-empty status or check name", i)
		}
	}
	return nil
}

// checkEnqueueingLabel (the WriteCheck of enqueueingLabel): a name GitHub
// can hold as a label, 1 to 50 printable characters, not only spaces.
func checkEnqueueingLabel(l string) error {
	if strings.TrimSpace(l) == "" || len([]rune(l)) > 50 || strings.ContainsFunc(l, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return Inputf("enqueueingLabel must be a GitHub label name of 1 to 50 printable characters, got %q", l)
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

// ChecksStartTimeout is ChecksStartTimeoutMinutes as a duration; 0 (off)
// when not positive, saturating like TestingTimeout.
func (s Settings) ChecksStartTimeout() time.Duration {
	return saturatingDuration(s.ChecksStartTimeoutMinutes, time.Minute)
}

// DefaultCheckRetryBudgetPercent is CheckRetryBudgetPercent when unset.
const DefaultCheckRetryBudgetPercent = 20

// EffectiveCheckRetryBudgetPercent is CheckRetryBudgetPercent, or
// DefaultCheckRetryBudgetPercent when unset.
func (s Settings) EffectiveCheckRetryBudgetPercent() int {
	if s.CheckRetryBudgetPercent <= 0 {
		return DefaultCheckRetryBudgetPercent
	}
	return s.CheckRetryBudgetPercent
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

// validateBotSubmitters (the Check of allowedBotSubmitters) checks
// AllowedBotSubmitters: at most MaxBotSubmitters bot logins, each a GitHub
// login (ValidateOwner's rule) followed by "[bot]" as GitHub Apps' logins
// are, none twice (logins compare case-insensitively). A login without
// "[bot]" is refused: the list exempts its members from the permission
// check, which only a bot account (which cannot be a collaborator) needs;
// a person or a machine user is given write access instead.
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

// checkAutoTune (the Across rule of autoTune): the tuner chooses within
// the user's bounds, so autoTune needs at least its bound on the runs at
// once. In parallel mode it tunes the concurrency only (autotune.GridFor).
func checkAutoTune(s Settings) error {
	if s.AutoTune && s.AutoTuneMaxRuns < 1 {
		return Inputf("autoTune requires autoTuneMaxRuns (the most CI runs at once it may choose, 1..%d), got %d", MaxConcurrency, s.AutoTuneMaxRuns)
	}
	return nil
}

// checkFastForwardLanding (the Across rule of fastForwardLanding): landing
// by fast-forward keeps the test commit's merge commits, which is the
// merge_commit method's history; squash or rebase would leave each PR
// closed, not merged.
func checkFastForwardLanding(s Settings) error {
	if s.FastForwardLanding && s.MergeMethod != MergeCommit {
		return Inputf("fastForwardLanding requires mergeMethod merge_commit (squash or rebase cannot land by fast-forward), got mergeMethod %s", s.MergeMethod)
	}
	return nil
}
