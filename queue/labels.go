package queue

import (
	"context"
	"strings"

	"github.com/rs/zerolog"
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

// updateLabels keeps the PR's labels in step with the entry (best effort):
// one state label at a time, and the enqueue label removed when the entry
// ends (SPEC §6).
func (s *Service) updateLabels(ctx context.Context, q *Queue, e *Entry, from EntryState) {
	l, ok := s.gh.(Labeler)
	if !ok {
		return
	}
	log := zerolog.Ctx(ctx)
	repo := q.Key.Repo
	if q.Settings.StateLabelsEnabled && from != e.State {
		if from != "" {
			if err := l.RemoveLabel(ctx, repo, e.PRNumber, StateLabel(from)); err != nil {
				log.Warn().Err(err).Int("pr", e.PRNumber).Msg("failed to remove a state label")
			}
		}
		if err := l.AddLabel(ctx, repo, e.PRNumber, StateLabel(e.State)); err != nil {
			log.Warn().Err(err).Int("pr", e.PRNumber).Msg("failed to add a state label")
		}
	}
	if e.State.Terminal() && from != e.State && q.Settings.LabelCommandsEnabled && q.Settings.EnqueueingLabel != "" && e.Source == "label" {
		if err := l.RemoveLabel(ctx, repo, e.PRNumber, q.Settings.EnqueueingLabel); err != nil {
			log.Warn().Err(err).Int("pr", e.PRNumber).Msg("failed to remove the enqueue label")
		}
	}
}
