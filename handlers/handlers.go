package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/palantir/go-githubapp/githubapp"

	"github.com/mergequeue/mq/queue"
)

// deps is what every handler holds (reads and gh are nil in the handlers
// that need neither).
type deps struct {
	cfg   Config
	svc   Service
	reads Reads
	gh    GitHub
}

func newDeps(cfg Config, svc Service, reads Reads, gh GitHub) deps {
	return deps{cfg: cfg.withDefaults(), svc: svc, reads: reads, gh: gh}
}

// New returns every webhook handler, ready for inbox.NewProcessor: they
// act through svc (the queue's use cases), look up and show through reads
// (its read side) and authorise through gh.
func New(cfg Config, svc Service, reads Reads, gh GitHub) []githubapp.EventHandler {
	return []githubapp.EventHandler{
		NewPullRequestHandler(cfg, svc, reads, gh),
		NewIssueCommentHandler(cfg, svc, reads, gh),
		NewPushHandler(cfg, svc),
		NewStatusHandler(cfg, svc),
		NewCheckRunHandler(cfg, svc),
		NewIgnoredHandler(),
	}
}

// reply records a fresh comment on PR number, which the reconciler posts.
// key names what it answers (a command comment, a delivery): handling the
// same event twice replies once. Handlers write nothing to GitHub
// themselves.
func (d deps) reply(ctx context.Context, key string, repo queue.Repo, number int, body string) error {
	err := d.svc.AddNotice(ctx, queue.Notice{Key: "reply:" + key, Repo: repo, PRNumber: number,
		Kind: queue.NoticeComment, Body: body})
	if err != nil {
		return fmt.Errorf("failed to record a reply on #%d: %w", number, err)
	}
	return nil
}

// queueSettings returns the settings of the queue for key, or nil when no
// such queue exists.
func (d deps) queueSettings(ctx context.Context, key queue.QueueKey) (*queue.Settings, error) {
	q, _, err := d.reads.GetQueue(ctx, key)
	if errors.Is(err, queue.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	settings := q.Settings // the read side's queue is shared: never hand out a pointer into it
	return &settings, nil
}

// isEnqueueLabel reports whether label is the enqueue label of the queue
// whose settings are s (nil: no queue) and that queue accepts label
// commands. A queue's EnqueueingLabel setting wins; without a queue (or with
// an empty setting) the configured EnqueueLabel applies. Label names compare
// case-insensitively, as on GitHub.
func (d deps) isEnqueueLabel(s *queue.Settings, label string) bool {
	want := d.cfg.EnqueueLabel
	if s != nil {
		if !s.LabelCommandsEnabled {
			return false
		}
		if s.EnqueueingLabel != "" {
			want = s.EnqueueingLabel
		}
	}
	return label != "" && strings.EqualFold(label, want)
}

// submitFailureReply turns the refusal of a submission (Submit,
// SubmitTarget) into a reply for the user; ok is false for errors that are
// not refusals (they are returned for retry).
func submitFailureReply(login string, key queue.QueueKey, err error) (string, bool) {
	r, ok := queue.AsRefusal(err)
	if !ok {
		return "", false
	}
	if r.Reason == queue.RefusedNoQueue {
		return noQueueReply(login, key.Branch), true
	}
	return submitRefusedReply(login, r.Msg), true
}

type deliveryKey struct{}

// withDelivery remembers the webhook delivery being handled.
func withDelivery(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, deliveryKey{}, id)
}

// deliveryFrom returns the delivery being handled ("" outside a handler).
func deliveryFrom(ctx context.Context) string {
	id, _ := ctx.Value(deliveryKey{}).(string)
	return id
}
