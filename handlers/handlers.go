package handlers

import (
	"context"
	"errors"
	"strings"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

// deps is what every handler holds.
type deps struct {
	cfg Config
	svc Service
	gh  GitHub
}

func newDeps(cfg Config, svc Service, gh GitHub) deps {
	return deps{cfg: cfg.withDefaults(), svc: svc, gh: gh}
}

// New returns every webhook handler, ready for inbox.NewProcessor.
func New(cfg Config, svc Service, gh GitHub) []githubapp.EventHandler {
	return []githubapp.EventHandler{
		NewPullRequestHandler(cfg, svc, gh),
		NewIssueCommentHandler(cfg, svc, gh),
		NewPushHandler(cfg, svc),
		NewStatusHandler(cfg, svc),
		NewCheckRunHandler(cfg, svc),
		NewIgnoredHandler(),
	}
}

// reply posts a fresh comment on PR number. Replies are best-effort: a
// failure is logged and the command's effect stands.
func (d deps) reply(ctx context.Context, repo queue.Repo, number int, body string) {
	if _, err := d.gh.UpsertComment(ctx, repo, number, 0, body); err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("failed to post reply comment")
	}
}

// queueSettings returns the settings of the queue for key, or nil when no
// such queue exists.
func (d deps) queueSettings(ctx context.Context, key queue.QueueKey) (*queue.Settings, error) {
	q, _, err := d.svc.GetQueue(ctx, key)
	if errors.Is(err, queue.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &q.Settings, nil
}

// isEnqueueLabel reports whether label is the enqueue label of the queue for
// key and that queue accepts label commands. A queue's EnqueueingLabel
// setting wins; without a queue (or with an empty setting) the configured
// EnqueueLabel applies. Label names compare case-insensitively, as on GitHub.
func (d deps) isEnqueueLabel(ctx context.Context, key queue.QueueKey, label string) (bool, error) {
	s, err := d.queueSettings(ctx, key)
	if err != nil {
		return false, err
	}
	want := d.cfg.EnqueueLabel
	if s != nil {
		if !s.LabelCommandsEnabled {
			return false, nil
		}
		if s.EnqueueingLabel != "" {
			want = s.EnqueueingLabel
		}
	}
	return label != "" && strings.EqualFold(label, want), nil
}

// submitFailureReply turns a Submit error into a reply for the user; ok is
// false for errors that are not the user's (they are returned for retry).
func submitFailureReply(login string, key queue.QueueKey, err error) (string, bool) {
	var input *queue.InputError
	switch {
	case errors.Is(err, queue.ErrNotFound):
		return noQueueReply(login, key.Branch), true
	case errors.As(err, &input):
		return submitRefusedReply(login, input.Msg), true
	case errors.Is(err, queue.ErrPRNotFound):
		return submitRefusedReply(login, "GitHub does not know this pull request"), true
	}
	return "", false
}
