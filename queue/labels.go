package queue

import (
	"context"
	"strings"
)

// Labeler is the optional part of the GitHub port that manages PR labels
// (the enqueue label and state labels).
type Labeler interface {
	// AddLabel adds a label to a PR (adding one it has is not an error).
	AddLabel(ctx context.Context, repo Repo, number int, label string) error
	// RemoveLabel removes a label from a PR (removing one it lacks is not
	// an error).
	RemoveLabel(ctx context.Context, repo Repo, number int, label string) error
}

// StateLabel is the label shown for a state with stateLabelsEnabled
// ("mq:tests-passed").
func StateLabel(st EntryState) string {
	return "mq:" + strings.ReplaceAll(string(st), "_", "-")
}
