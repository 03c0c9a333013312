package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/palantir/go-githubapp/githubapp"

	"github.com/mergequeue/mq/githubx/ghfacts"
	"github.com/mergequeue/mq/queue"
)

// CheckRunHandler reports check runs to the queue (created, completed and
// rerequested) as ghfacts.CheckRun turns them into results. The queue's
// own check run ("Merge Queue (<branch>)") is ignored: it reports on the
// queue, it is not a CI result.
type CheckRunHandler struct{ deps }

var _ githubapp.EventHandler = (*CheckRunHandler)(nil)

// NewCheckRunHandler builds the check_run handler.
func NewCheckRunHandler(cfg Config, svc Service) *CheckRunHandler {
	return &CheckRunHandler{newDeps(cfg, svc, nil, nil)}
}

// Handles implements githubapp.EventHandler.
func (h *CheckRunHandler) Handles() []string { return []string{"check_run"} }

// Handle implements githubapp.EventHandler.
func (h *CheckRunHandler) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var ev struct {
		ghEvent
		CheckRun *ghfacts.WebhookCheckRun `json:"check_run"`
	}
	if err := decode(eventType, payload, &ev); err != nil {
		return err
	}
	switch ev.Action {
	case "created", "completed", "rerequested":
	default:
		return nil
	}
	run := ev.CheckRun
	if run == nil || run.HeadSHA == "" || run.Name == "" {
		return Permanent(errors.New("check_run payload has no head_sha or name"))
	}
	if strings.HasPrefix(run.Name, queue.CheckRunPrefix) {
		return nil
	}
	repo, ghRepo, err := repoOf(h.cfg, ev.Repository)
	if err != nil {
		return err
	}
	ctx, _ = githubapp.PrepareRepoContext(ctx, ev.installationID(), ghRepo)
	c := run.Facts()
	if err := h.svc.OnCheck(ctx, repo, c); err != nil {
		return fmt.Errorf("failed to record check run %q on %s: %w", c.Name, c.SHA, err)
	}
	return nil
}
