package engine

import (
	"fmt"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// EvaluateChecks decides a run from the results on its commit: failed as
// soon as any required check failed, succeeded once every required check
// passed (success, neutral or skipped), pending otherwise. A required name
// reported both as a status and as a check run must pass as both. With no
// required checks the run passes at once (an explicit empty list).
func EvaluateChecks(required []string, results []queue.CheckResult) (queue.RunStatus, string) {
	var pending []string
	for _, name := range required {
		seen := false
		for _, c := range results {
			if c.Name != name {
				continue
			}
			seen = true
			switch c.State {
			case queue.CheckFailure:
				detail := fmt.Sprintf("required check %q failed (%s)", name, c.Raw)
				if c.URL != "" {
					detail += ": " + c.URL
				}
				return queue.RunFailed, detail
			case queue.CheckPending:
				pending = append(pending, name)
			}
		}
		if !seen {
			pending = append(pending, name)
		}
	}
	if len(pending) > 0 {
		return queue.RunInProgress, "waiting for " + strings.Join(dedupe(pending), ", ")
	}
	return queue.RunSucceeded, "all required checks passed"
}

func dedupe(s []string) []string {
	out := s[:0:0]
	seen := map[string]bool{}
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
