package handlers

import (
	"context"
	"fmt"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/githubx/ghfacts"
	"github.com/mergequeue/mq/queue"
)

// PullRequestHandler turns pull_request events into PR facts for the queue
// and handles the enqueue label: adding it (by a user with write access)
// submits the PR to the queue of its base branch, removing it cancels the
// PR's active entries. Label changes made by the bot itself are ignored;
// PR facts are forwarded whoever caused them (they are facts, not commands).
// Events whose base branch breaks the naming rules are ignored (no queue
// can target it; the queue's reconciliation still reads such a PR).
type PullRequestHandler struct{ deps }

var _ githubapp.EventHandler = (*PullRequestHandler)(nil)

// NewPullRequestHandler builds the pull_request handler.
func NewPullRequestHandler(cfg Config, svc Service, reads Reads, gh GitHub) *PullRequestHandler {
	return &PullRequestHandler{newDeps(cfg, svc, reads, gh)}
}

// factActions are the actions that change what the queue knows about a PR.
var factActions = map[string]bool{
	"opened": true, "reopened": true, "synchronize": true, "closed": true,
	"edited": true, "converted_to_draft": true, "ready_for_review": true,
}

// Handles implements githubapp.EventHandler.
func (h *PullRequestHandler) Handles() []string { return []string{"pull_request"} }

// Handle implements githubapp.EventHandler.
func (h *PullRequestHandler) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	ctx = withDelivery(ctx, deliveryID)
	var ev struct {
		ghEvent
		Number      int                         `json:"number"`
		PullRequest *ghfacts.WebhookPullRequest `json:"pull_request"`
		Label       *ghLabel                    `json:"label"`
	}
	if err := decode(eventType, payload, &ev); err != nil {
		return err
	}
	action := ev.Action
	if !factActions[action] && action != "labeled" && action != "unlabeled" {
		return nil
	}
	if ev.PullRequest == nil {
		return Permanent(fmt.Errorf("pull_request %s payload has no pull_request", action))
	}
	repo, ghRepo, err := repoOf(h.cfg, ev.Repository)
	if err != nil {
		return err
	}
	pr := ev.PullRequest.Facts()
	if pr.Number == 0 {
		pr.Number = ev.Number
	}
	if pr.Number <= 0 {
		return Permanent(fmt.Errorf("pull_request %s payload has no pull request number", action))
	}
	ctx, log := githubapp.PreparePRContext(ctx, ev.installationID(), ghRepo, pr.Number)
	ctx = log.With().Str("action", action).Logger().WithContext(ctx)
	if why := unqueueableBranch(pr.BaseBranch); why != "" {
		zerolog.Ctx(ctx).Info().Str("reason", why).Msg("ignoring pull_request event: no queue can target its base branch")
		return nil
	}

	if factActions[action] {
		if err := h.svc.OnPullRequest(ctx, repo, pr); err != nil {
			return fmt.Errorf("failed to record pull request #%d (%s): %w", pr.Number, action, err)
		}
		return nil
	}
	sender := ev.Sender.Login
	if sender == "" {
		return Permanent(fmt.Errorf("pull_request %s payload has no sender", action))
	}
	if h.cfg.isBot(sender) {
		zerolog.Ctx(ctx).Debug().Msg("ignoring the bot's own label change")
		return nil
	}
	key := queue.QueueKey{Repo: repo, Branch: pr.BaseBranch}
	label := ""
	if ev.Label != nil {
		label = ev.Label.Name
	}
	settings, err := h.queueSettings(ctx, key)
	if err != nil {
		return fmt.Errorf("failed to read queue %s: %w", key, err)
	}
	if !h.isEnqueueLabel(settings, label) {
		return nil
	}
	if queue.IsOwnTestPR(settings, pr.HeadRef) {
		zerolog.Ctx(ctx).Info().Str("head", pr.HeadRef).Msg("ignoring the queue's own test PR")
		return nil // a queue's own test PR is never queued
	}
	if action == "labeled" {
		return h.labeled(ctx, key, settings, pr.Number, sender, ev.Sender.isBotAccount(), label)
	}
	detail := "label removed by @" + sender
	if _, err := h.svc.CancelPR(ctx, repo, pr.Number, queue.ReasonLabelRemoved, detail); err != nil {
		return fmt.Errorf("failed to cancel pull request #%d: %w", pr.Number, err)
	}
	return nil
}

// labeled submits the PR to the queue for key (settings: its settings, nil
// when it does not exist yet) after checking that sender (a bot account
// when senderBot) may.
func (h *PullRequestHandler) labeled(ctx context.Context, key queue.QueueKey, settings *queue.Settings, number int, sender string, senderBot bool, label string) error {
	allowed, err := authorize(ctx, h.gh, key.Repo, settings, sender, senderBot, AccessWrite, true)
	if err != nil {
		return err
	}
	if !allowed {
		zerolog.Ctx(ctx).Info().Str("sender", sender).Msg("enqueue label refused: no write access")
		return h.reply(ctx, "label:"+deliveryFrom(ctx), key.Repo, number, labelRefusalReply(sender, label))
	}
	_, err = h.svc.Submit(ctx, queue.SubmitRequest{
		Key: key, PRNumber: number, Submitter: sender, Source: "label",
	})
	if err != nil {
		if msg, ok := submitFailureReply(sender, key, err); ok {
			return h.reply(ctx, "label:"+deliveryFrom(ctx), key.Repo, number, msg)
		}
		return fmt.Errorf("failed to submit pull request #%d to %s: %w", number, key, err)
	}
	return nil
}
