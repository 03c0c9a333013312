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
	// ListLabels returns the names of a PR's labels.
	ListLabels(ctx context.Context, repo Repo, number int) ([]string, error)
}

// IsStateLabel reports whether label is one of the state labels.
func IsStateLabel(label string) bool {
	for _, st := range AllEntryStates {
		if strings.EqualFold(label, StateLabel(st)) {
			return true
		}
	}
	return false
}

// StateLabel is the label shown for a state with stateLabelsEnabled
// ("mq:tests-passed").
func StateLabel(st EntryState) string {
	return "mq:" + strings.ReplaceAll(string(st), "_", "-")
}
