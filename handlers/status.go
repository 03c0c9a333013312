package handlers

import (
	"context"
	"errors"
	"fmt"

	"github.com/palantir/go-githubapp/githubapp"

	"github.com/mergequeue/mq/githubx/ghfacts"
)

// StatusHandler reports commit statuses to the queue.
type StatusHandler struct{ deps }

var _ githubapp.EventHandler = (*StatusHandler)(nil)

// NewStatusHandler builds the status handler.
func NewStatusHandler(cfg Config, svc Service) *StatusHandler {
	return &StatusHandler{newDeps(cfg, svc, nil, nil)}
}

// Handles implements githubapp.EventHandler.
func (h *StatusHandler) Handles() []string { return []string{"status"} }

// Handle implements githubapp.EventHandler. The status becomes a result as
// ghfacts.Status says: the target_url, which code on a fork PR's test
// branch can set, is kept only if textsafe.CIURL accepts it.
func (h *StatusHandler) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var ev struct {
		ghEvent
		ghfacts.WebhookStatus
	}
	if err := decode(eventType, payload, &ev); err != nil {
		return err
	}
	if ev.SHA == "" || ev.Context == "" {
		return Permanent(errors.New("status payload has no sha or context"))
	}
	repo, ghRepo, err := repoOf(h.cfg, ev.Repository)
	if err != nil {
		return err
	}
	ctx, _ = githubapp.PrepareRepoContext(ctx, ev.installationID(), ghRepo)
	c := ev.WebhookStatus.Facts()
	if err := h.svc.OnCheck(ctx, repo, c); err != nil {
		return fmt.Errorf("failed to record status %q on %s: %w", c.Name, c.SHA, err)
	}
	return nil
}
