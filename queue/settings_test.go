package queue

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

func TestApplySettingsNewFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		update QueueUpdate
		check  func(t *testing.T, s Settings)
	}{
		{"construction mode", QueueUpdate{TestBranchConstructionMode: ptr(RenameTempBranch)}, func(t *testing.T, s Settings) {
			if s.TestBranchConstructionMode != RenameTempBranch {
				t.Errorf("mode %q", s.TestBranchConstructionMode)
			}
		}},
		{"bots kept in order", QueueUpdate{AllowedBotSubmitters: ptr([]string{"b[bot]", "a[bot]", "ci-App[BOT]"})}, func(t *testing.T, s Settings) {
			if want := []string{"b[bot]", "a[bot]", "ci-App[BOT]"}; !reflect.DeepEqual(s.AllowedBotSubmitters, want) {
				t.Errorf("bots %v, want %v", s.AllowedBotSubmitters, want)
			}
		}},
		{"bots cleared", QueueUpdate{AllowedBotSubmitters: ptr([]string{})}, func(t *testing.T, s Settings) {
			if len(s.AllowedBotSubmitters) != 0 {
				t.Errorf("bots %v, want none", s.AllowedBotSubmitters)
			}
		}},
		{"prefix", QueueUpdate{TestBranchPrefix: ptr("ci/merge-queue/")}, func(t *testing.T, s Settings) {
			if got := s.EffectiveTestBranchPrefix(); got != "ci/merge-queue/" {
				t.Errorf("prefix %q", got)
			}
		}},
		{"absent fields keep their value", QueueUpdate{}, func(t *testing.T, s Settings) {
			if !reflect.DeepEqual(s.AllowedBotSubmitters, []string{"old[bot]"}) || s.TestBranchPrefix != "old/" {
				t.Errorf("settings changed: %+v", s)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cur := DefaultSettings()
			cur.AllowedBotSubmitters, cur.TestBranchPrefix = []string{"old[bot]"}, "old/"
			s, err := tt.update.ApplySettings(cur)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, s)
		})
	}
}

func TestApplySettingsRefusesNewFields(t *testing.T) {
	t.Parallel()
	many := make([]string, MaxBotSubmitters+1)
	for i := range many {
		many[i] = "bot" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + "-" + string(rune('a'+i/26)) + "[bot]"
	}
	tests := []struct {
		name   string
		update QueueUpdate
		want   string
	}{
		{"unknown construction mode", QueueUpdate{TestBranchConstructionMode: ptr(TestBranchConstructionMode("push"))},
			`testBranchConstructionMode: "push" is not one of rename_temp_branch`},
		{"bot with a slash", QueueUpdate{AllowedBotSubmitters: ptr([]string{"ok[bot]", "evil/x[bot]"})},
			`invalid field allowedBotSubmitters[1]: must hold only ASCII letters, digits and hyphens, followed by [bot], got "evil/x[bot]"`},
		{"a person's login", QueueUpdate{AllowedBotSubmitters: ptr([]string{"renovate[bot]", "ci-user"})},
			`invalid field allowedBotSubmitters[1]: must be a bot login ending in [bot], such as renovate[bot] (a person or machine user needs write access instead), got "ci-user"`},
		{"[bot] inside", QueueUpdate{AllowedBotSubmitters: ptr([]string{"a[bot]b"})}, `allowedBotSubmitters[0]: must be a bot login ending in [bot]`},
		{"empty bot", QueueUpdate{AllowedBotSubmitters: ptr([]string{""})}, "allowedBotSubmitters[0]: must not be empty"},
		{"bare [bot]", QueueUpdate{AllowedBotSubmitters: ptr([]string{"[bot]"})}, "allowedBotSubmitters[0]: must not be empty"},
		{"bot twice", QueueUpdate{AllowedBotSubmitters: ptr([]string{"Renovate[bot]", "renovate[bot]"})},
			`allowedBotSubmitters[1]: "renovate[bot]" repeats allowedBotSubmitters[0]`},
		{"too many bots", QueueUpdate{AllowedBotSubmitters: ptr(many)}, "at most 100 logins"},
		{"prefix without slash", QueueUpdate{TestBranchPrefix: ptr("mq-merge")}, `invalid field testBranchPrefix: must be a branch name followed by "/"`},
		{"prefix slash alone", QueueUpdate{TestBranchPrefix: ptr("/")}, "testBranchPrefix"},
		{"scratch prefix", QueueUpdate{TestBranchPrefix: ptr("mq-temp/")}, `must not start with "mq-temp/"`},
		{"under scratch prefix", QueueUpdate{TestBranchPrefix: ptr("mq-temp/x/")}, `must not start with "mq-temp/"`},
		{"dot dot", QueueUpdate{TestBranchPrefix: ptr("a..b/")}, `must not contain ".."`},
		{"space", QueueUpdate{TestBranchPrefix: ptr("merge queue/")}, "must not contain spaces"},
		{"double slash", QueueUpdate{TestBranchPrefix: ptr("a//")}, "two slashes"},
		{"lock component", QueueUpdate{TestBranchPrefix: ptr("x.lock/")}, ".lock"},
		{"too long", QueueUpdate{TestBranchPrefix: ptr(strings.Repeat("a", MaxTestBranchPrefixLen) + "/")}, "at most 128 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := tt.update.ApplySettings(DefaultSettings())
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *InputError", err)
			}
			if !strings.Contains(ie.Msg, tt.want) {
				t.Errorf("got %q, want it to contain %q", ie.Msg, tt.want)
			}
		})
	}
}

func TestTestBranchNames(t *testing.T) {
	t.Parallel()
	if got := TestBranchName(DefaultTestBranchPrefix, 12, "3f2c", false); got != "mq-merge/pr-12/3f2c" {
		t.Errorf("name %q", got)
	}
	if got := TestBranchName("ci/mq/", 7, "r1", true); got != "ci/mq/pr-7/r1-bisection" {
		t.Errorf("bisection name %q", got)
	}
	tests := []struct {
		prefix, name string
		want         bool
	}{
		{"mq-merge/", "mq-merge/pr-12/3f2c", true},
		{"mq-merge/", "mq-merge/pr-12/3f2c-bisection", true},
		{"ci/", "ci/pr-1/00000000-0000-4000-8000-000000000001", true},
		{"ci/", "ci/release", false},
		{"ci/", "ci/pr-/x", false},
		{"ci/", "ci/pr-01/x", false},
		{"ci/", "ci/pr-1x/x", false},
		{"ci/", "ci/pr-1/", false},
		{"ci/", "ci/pr-1/a/b", false},
		{"ci/", "other/pr-1/x", false},
		{"ci/", "ci/pr-1/-bisection", false},
	}
	for _, tt := range tests {
		if got := IsTestBranch(tt.prefix, tt.name); got != tt.want {
			t.Errorf("IsTestBranch(%q, %q) = %v, want %v", tt.prefix, tt.name, got, tt.want)
		}
	}
	for _, p := range []string{DefaultTestBranchPrefix, "ci/merge-queue/", "team-a/mq/"} {
		if err := ValidateTestBranchPrefix(p); err != nil {
			t.Errorf("%q refused: %v", p, err)
		}
		if err := ValidateBranch(TestBranchName(p, 2147483647, "00000000-0000-4000-8000-000000000001", true)); err != nil {
			t.Errorf("a branch under %q is not a valid branch: %v", p, err)
		}
	}
}

// Every numeric setting has an upper bound (docs/api.md): the bound itself
// is accepted, one above it (and the notReadyTimeoutHours 2562048,
// whose hours overflow a time.Duration) is an *InputError naming the field.
func TestSettingsUpperBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		field string
		max   int
		set   func(u *QueueUpdate, v int)
	}{
		{"concurrency", MaxConcurrency, func(u *QueueUpdate, v int) { u.Concurrency = &v }},
		{"testingTimeoutMinutes", 10080, func(u *QueueUpdate, v int) { u.TestingTimeoutMinutes = &v }},
		{"pendingFailureDepth", MaxPendingFailureDepth, func(u *QueueUpdate, v int) { u.PendingFailureDepth = &v }},
		{"batchingMaxWaitTimeMinutes", 1440, func(u *QueueUpdate, v int) { u.BatchingMaxWaitTimeMinutes = &v }},
		{"batchingMinSize", MaxBatchSize, func(u *QueueUpdate, v int) { u.BatchingMinSize = &v }},
		{"batchingMaxSize", MaxBatchSize, func(u *QueueUpdate, v int) { u.BatchingMaxSize = &v }},
		{"bisectionConcurrency", MaxConcurrency, func(u *QueueUpdate, v int) { u.BisectionConcurrency = &v }},
		{"notReadyTimeoutHours", 8760, func(u *QueueUpdate, v int) { u.NotReadyTimeoutHours = &v }},
		{"bisectionParts", MaxBisectionParts, func(u *QueueUpdate, v int) { u.BisectionParts = &v }},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			t.Parallel()
			var ok QueueUpdate
			tt.set(&ok, tt.max)
			if _, err := ok.ApplySettings(DefaultSettings()); err != nil {
				t.Errorf("%s = %d (the bound) refused: %v", tt.field, tt.max, err)
			}
			for _, v := range []int{tt.max + 1, 2562048, math.MaxInt} {
				var u QueueUpdate
				tt.set(&u, v)
				_, err := u.ApplySettings(DefaultSettings())
				var ie *InputError
				if !errors.As(err, &ie) || !strings.Contains(ie.Msg, tt.field) || !strings.Contains(ie.Msg, fmt.Sprint(tt.max)) {
					t.Errorf("%s = %d: got %v, want an *InputError naming the field and its bound %d", tt.field, v, err, tt.max)
				}
			}
		})
	}
}

// The duration helpers saturate instead of wrapping around.
func TestSettingsDurationsSaturate(t *testing.T) {
	t.Parallel()
	s := Settings{TestingTimeoutMinutes: 90, BatchingMaxWaitTimeMinutes: -3, NotReadyTimeoutHours: 2562048}
	if got := s.TestingTimeout(); got != 90*time.Minute {
		t.Errorf("TestingTimeout = %v, want 1h30m", got)
	}
	if got := s.BatchingMaxWait(); got != 0 {
		t.Errorf("BatchingMaxWait of a negative value = %v, want 0", got)
	}
	if got := s.NotReadyTimeout(); got != math.MaxInt64 {
		t.Errorf("NotReadyTimeout(2562048 h) = %v, want the longest duration", got)
	}
	s.TestingTimeoutMinutes = math.MaxInt
	if got := s.TestingTimeout(); got != math.MaxInt64 {
		t.Errorf("TestingTimeout(MaxInt min) = %v, want the longest duration", got)
	}
}
