package queue

import (
	"strconv"
	"strings"
)

// failedCheckPrefix starts EvaluateChecks' detail of a failed run.
const failedCheckPrefix = "required check "

// FailedCheckName returns the check the first failure detail of
// EvaluateChecks in detail names (`required check "ci/test" failed
// (failure): …`, also quoted inside another detail), and false when there
// is none. It reads only what EvaluateChecks writes.
func FailedCheckName(detail string) (string, bool) {
	i := strings.Index(detail, failedCheckPrefix+`"`)
	if i < 0 {
		return "", false
	}
	rest := detail[i+len(failedCheckPrefix):]
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil || !strings.HasPrefix(rest[len(quoted):], " failed") {
		return "", false
	}
	name, err := strconv.Unquote(quoted)
	if err != nil || name == "" {
		return "", false
	}
	return name, true
}
