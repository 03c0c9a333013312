package handlers

import (
	"context"
	"fmt"
	"strings"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"
)

// zeroSHA is the "after" of a push that deleted a ref.
const zeroSHA = "0000000000000000000000000000000000000000"

// PushHandler reports branch moves to the queue. Tag pushes, branch
// deletions and pushes to a branch breaking the naming rules (which no
// queue can target) are ignored.
type PushHandler struct{ deps }

var _ githubapp.EventHandler = (*PushHandler)(nil)

// NewPushHandler builds the push handler.
func NewPushHandler(cfg Config, svc Service) *PushHandler {
	return &PushHandler{newDeps(cfg, svc, nil, nil)}
}

// Handles implements githubapp.EventHandler.
func (h *PushHandler) Handles() []string { return []string{"push"} }

// Handle implements githubapp.EventHandler.
func (h *PushHandler) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var ev struct {
		ghEvent
		Ref     string `json:"ref"`
		Before  string `json:"before"`
		After   string `json:"after"`
		Deleted bool   `json:"deleted"`
	}
	if err := decode(eventType, payload, &ev); err != nil {
		return err
	}
	branch, ok := strings.CutPrefix(ev.Ref, "refs/heads/")
	if !ok || branch == "" || ev.Deleted || ev.After == "" || ev.After == zeroSHA {
		return nil
	}
	after := ev.After
	repo, ghRepo, err := repoOf(h.cfg, ev.Repository)
	if err != nil {
		return err
	}
	ctx, _ = githubapp.PrepareRepoContext(ctx, ev.installationID(), ghRepo)
	if why := unqueueableBranch(branch); why != "" {
		zerolog.Ctx(ctx).Info().Str("reason", why).Msg("ignoring push to a branch no queue can target")
		return nil
	}
	if err := h.svc.OnPush(ctx, repo, branch, ev.Before, after); err != nil {
		return fmt.Errorf("failed to record push of %s to %s: %w", after, branch, err)
	}
	return nil
}
