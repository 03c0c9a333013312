package queue

import (
	"errors"
	"fmt"
	"strings"
)

// DefaultTestBranchPrefix starts test branch names unless a queue sets
// its own TestBranchPrefix (SPEC §6: mq-merge/pr-<N>/<testRunId>).
const DefaultTestBranchPrefix = "mq-merge/"

// MaxTestBranchPrefixLen bounds a TestBranchPrefix in bytes, leaving room
// in a branch name (MaxBranchLen) for pr-<N>/<testRunId>-bisection.
const MaxTestBranchPrefixLen = 128

// ValidateTestBranchPrefix checks a test branch prefix: a branch name as
// ValidateBranch accepts it, followed by "/", at most
// MaxTestBranchPrefixLen bytes, and outside ScratchPrefix (the queue's
// scratch branches, which are not test branches). The error is an
// *InputError naming the field and the rule.
func ValidateTestBranchPrefix(prefix string) error {
	fail := func(rule string) error {
		return &InputError{Msg: (&NameError{Field: "testBranchPrefix", Value: prefix, Rule: rule}).Error()}
	}
	switch {
	case len(prefix) > MaxTestBranchPrefixLen:
		return fail(fmt.Sprintf("must be at most %d bytes", MaxTestBranchPrefixLen))
	case !strings.HasSuffix(prefix, "/") || prefix == "/":
		return fail(fmt.Sprintf(`must be a branch name followed by "/", like %q`, DefaultTestBranchPrefix))
	case strings.HasPrefix(prefix, ScratchPrefix):
		return fail(fmt.Sprintf("must not start with %q (the queue's scratch branches)", ScratchPrefix))
	}
	if err := ValidateBranch(strings.TrimSuffix(prefix, "/")); err != nil {
		var ne *NameError
		if errors.As(err, &ne) {
			return fail(ne.Rule)
		}
		return fail(err.Error())
	}
	return nil
}

// TestBranchName is the name of a run's test branch (SPEC §6):
// <prefix>pr-<N>/<runID>, N the unit's first PR, with "-bisection"
// appended for a bisection run.
func TestBranchName(prefix string, prNumber int, runID string, bisection bool) string {
	name := fmt.Sprintf("%spr-%d/%s", prefix, prNumber, runID)
	if bisection {
		name += "-bisection"
	}
	return name
}

// IsTestBranch reports whether name has the shape TestBranchName gives
// under prefix: <prefix>pr-<digits>/<id> with an id holding no "/". A
// sweep for leftover branches under a prefix a user chose deletes only
// such names, never another branch that happens to share the prefix.
func IsTestBranch(prefix, name string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, "pr-")
	if !ok {
		return false
	}
	num, id, ok := strings.Cut(rest, "/")
	if !ok || num == "" || strings.Trim(num, "0123456789") != "" || num[0] == '0' {
		return false
	}
	return id != "" && id != "-bisection" && !strings.Contains(id, "/")
}
