package handlers

import (
	"context"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"
)

// IgnoredHandler acknowledges events the queue subscribes to but does not
// act on: ping (the App's webhook check), check_suite (its check runs are
// reported one by one), installation and installation_repositories (the
// queue learns repositories from its own configuration). It logs them and
// never fails, so they are marked done at once.
type IgnoredHandler struct{}

var _ githubapp.EventHandler = (*IgnoredHandler)(nil)

// NewIgnoredHandler builds the handler for ignored events.
func NewIgnoredHandler() *IgnoredHandler { return &IgnoredHandler{} }

// Handles implements githubapp.EventHandler.
func (h *IgnoredHandler) Handles() []string {
	return []string{"ping", "check_suite", "installation", "installation_repositories"}
}

// Handle implements githubapp.EventHandler.
func (h *IgnoredHandler) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	level := zerolog.DebugLevel
	if eventType != "check_suite" {
		level = zerolog.InfoLevel
	}
	zerolog.Ctx(ctx).WithLevel(level).Msg("webhook event acknowledged and ignored")
	return nil
}
