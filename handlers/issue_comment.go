package handlers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

// IssueCommentHandler runs commands from new PR comments. It ignores edited
// and deleted comments (SPEC: commands come from new comments only: editing
// a comment never runs its command again), comments on issues, comments
// without a command line and the bot's own comments, and stays silent when
// the queue of the PR's base branch has commands disabled. Each command —
// comment id and updated_at — is acted on by one delivery only: the same
// signed payload replayed under a new delivery id changes nothing (no
// GitHub call, reaction, reply or entry change), while the inbox's retries
// of that delivery still may act. The commenter is authorised through
// GitHub at command time; a refused command changes nothing and gets a
// short reply. An accepted one gets a "+1" reaction, then acts.
type IssueCommentHandler struct{ deps }

var _ githubapp.EventHandler = (*IssueCommentHandler)(nil)

// NewIssueCommentHandler builds the issue_comment handler.
func NewIssueCommentHandler(cfg Config, svc Service, reads Reads, gh GitHub) *IssueCommentHandler {
	return &IssueCommentHandler{newDeps(cfg, svc, reads, gh)}
}

// Handles implements githubapp.EventHandler.
func (h *IssueCommentHandler) Handles() []string { return []string{"issue_comment"} }

// commandCall is one command to run, with where it came from.
type commandCall struct {
	cmd       Command
	repo      queue.Repo
	number    int
	commentID int64
	login     string
	bot       bool // GitHub marks login's account as a bot
}

// key names the command for the notices answering it: its comment, so a
// command handled twice (a redelivery) is answered once.
func (c commandCall) key() string {
	return fmt.Sprintf("comment:%s:%d", c.repo.Fold().FullName(), c.commentID)
}

// Handle implements githubapp.EventHandler.
func (h *IssueCommentHandler) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var ev struct {
		ghEvent
		Issue struct {
			Number int `json:"number"`
			// PullRequest is present only on pull requests' comments.
			PullRequest *struct{} `json:"pull_request"`
		} `json:"issue"`
		Comment struct {
			ID        int64  `json:"id"`
			Body      string `json:"body"`
			User      ghUser `json:"user"`
			UpdatedAt string `json:"updated_at"`
		} `json:"comment"`
	}
	if err := decode(eventType, payload, &ev); err != nil {
		return err
	}
	if ev.Action != "created" || ev.Issue.PullRequest == nil {
		return nil
	}
	login, bot := ev.Comment.User.Login, ev.Comment.User.isBotAccount()
	if login == "" {
		login, bot = ev.Sender.Login, ev.Sender.isBotAccount()
	}
	if login == "" || h.cfg.isBot(login) || h.cfg.isBot(ev.Sender.Login) {
		return nil
	}
	cmd, ok := ParseCommand(h.cfg.CommandPrefix, ev.Comment.Body)
	if !ok {
		return nil
	}
	repo, ghRepo, err := repoOf(h.cfg, ev.Repository)
	if err != nil {
		return err
	}
	number := ev.Issue.Number
	if number <= 0 {
		return Permanent(errors.New("issue_comment payload has no issue number"))
	}
	ctx, log := githubapp.PreparePRContext(ctx, ev.installationID(), ghRepo, number)
	ctx = log.With().Str("command", string(cmd.Kind)).Str("commenter", login).Logger().WithContext(ctx)
	if ev.Comment.ID > 0 {
		claim := queue.CommandClaim{Repo: repo, CommentID: ev.Comment.ID, UpdatedAt: commentTime(ev.Comment.UpdatedAt), DeliveryID: deliveryID}
		ours, err := h.svc.ClaimCommand(ctx, claim)
		if err != nil {
			return err
		}
		if !ours {
			zerolog.Ctx(ctx).Warn().Int64("comment_id", ev.Comment.ID).
				Msg("ignoring a command another webhook delivery already acted on (a replayed webhook)")
			return nil
		}
	}
	return h.run(ctx, commandCall{cmd: cmd, repo: repo, number: number,
		commentID: ev.Comment.ID, login: login, bot: bot})
}

// commentTime reads a comment's updated_at (RFC 3339); the zero time if it
// is absent or malformed, which still names the comment's command.
func commentTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// run authorises and executes one command. What it acts on — the PR and
// the queue of its base branch — the service reads once (CommandTarget);
// a refusal there (a PR GitHub does not know, commands disabled, one of
// the queue's own test PRs) ignores the command.
func (h *IssueCommentHandler) run(ctx context.Context, c commandCall) error {
	log := zerolog.Ctx(ctx)
	target, err := h.svc.CommandTarget(ctx, c.repo, c.number)
	if r, ok := queue.AsRefusal(err); ok {
		log.Info().Str("refusal", string(r.Reason)).Str("why", r.Msg).Msg("ignoring command")
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to read what the command acts on: %w", err)
	}
	settings := target.Settings()

	level := requiredAccess(c.cmd)
	allowed, err := authorize(ctx, h.gh, c.repo, settings, c.login, c.bot, level, c.cmd.Kind == CmdMerge)
	if err != nil {
		return err
	}
	if !allowed {
		log.Info().Stringer("needs", level).Msg("command refused: insufficient access")
		return h.reply(ctx, c.key(), c.repo, c.number, refusalReply(c.login, h.cfg.CommandPrefix, c.cmd, level))
	}
	prefix := h.cfg.CommandPrefix
	switch {
	case c.cmd.Kind == CmdUnknown:
		return h.reply(ctx, c.key(), c.repo, c.number, unknownCommandReply(c.login, prefix, c.cmd))
	case c.cmd.Err != "":
		return h.reply(ctx, c.key(), c.repo, c.number, badOptionsReply(c.login, prefix, c.cmd))
	}
	if c.commentID > 0 {
		if err := h.svc.AddNotice(ctx, queue.Notice{Key: "react:" + c.key(), Repo: c.repo, PRNumber: c.number,
			Kind: queue.NoticeReaction, Body: "+1", CommentID: c.commentID}); err != nil {
			return fmt.Errorf("failed to record the reaction to the command: %w", err)
		}
	}

	switch c.cmd.Kind {
	case CmdMerge:
		return h.merge(ctx, c, target)
	case CmdCancel:
		return h.cancel(ctx, c)
	case CmdRestart:
		return h.restart(ctx, c, target.Key())
	case CmdStatus:
		return h.status(ctx, c)
	case CmdHelp:
		return h.reply(ctx, c.key(), c.repo, c.number, "@"+c.login+"\n\n"+usage(prefix))
	}
	return nil
}

// merge submits the command's target; a refusal (no queue, an invalid
// priority) is answered.
func (h *IssueCommentHandler) merge(ctx context.Context, c commandCall, target *queue.CommandTarget) error {
	_, err := h.svc.SubmitTarget(ctx, target, queue.SubmitRequest{
		Priority:  c.cmd.Priority,
		NoBatch:   c.cmd.NoBatch,
		Direct:    c.cmd.Direct,
		Submitter: c.login,
		Source:    "comment",
	})
	if err == nil {
		return nil
	}
	if msg, ok := submitFailureReply(c.login, target.Key(), err); ok {
		return h.reply(ctx, c.key(), c.repo, c.number, msg)
	}
	return fmt.Errorf("failed to submit pull request #%d to %s: %w", c.number, target.Key(), err)
}

func (h *IssueCommentHandler) cancel(ctx context.Context, c commandCall) error {
	cancelled, err := h.svc.CancelPR(ctx, c.repo, c.number, queue.ReasonUserRequested, "cancelled by @"+c.login)
	if err != nil {
		return fmt.Errorf("failed to cancel pull request #%d: %w", c.number, err)
	}
	if len(cancelled) == 0 {
		return h.reply(ctx, c.key(), c.repo, c.number, notQueuedReply(c.login))
	}
	return nil
}

func (h *IssueCommentHandler) restart(ctx context.Context, c commandCall, key queue.QueueKey) error {
	_, err := h.svc.Restart(ctx, key, c.number)
	var input *queue.InputError
	switch {
	case errors.Is(err, queue.ErrNotActive), errors.Is(err, queue.ErrNotFound):
		return h.reply(ctx, c.key(), c.repo, c.number, notQueuedReply(c.login))
	case errors.As(err, &input):
		return h.reply(ctx, c.key(), c.repo, c.number, "@"+c.login+" "+input.Msg)
	case err != nil:
		return fmt.Errorf("failed to restart pull request #%d: %w", c.number, err)
	}
	return nil
}

func (h *IssueCommentHandler) status(ctx context.Context, c commandCall) error {
	entries, err := h.reads.ActiveEntries(ctx, c.repo, c.number)
	if err != nil {
		return fmt.Errorf("failed to list entries of pull request #%d: %w", c.number, err)
	}
	lines := make([]queuedEntry, 0, len(entries))
	for _, e := range entries {
		q, err := h.reads.QueueByID(ctx, e.QueueID)
		if err != nil {
			return fmt.Errorf("failed to read queue %d: %w", e.QueueID, err)
		}
		ests, err := h.reads.Estimates(ctx, q)
		if err != nil {
			return fmt.Errorf("failed to estimate queue %s: %w", q.Key, err)
		}
		est := ests[e.ID]
		lines = append(lines, queuedEntry{Branch: q.Key.Branch, Entry: e, Position: est.Position, Of: est.Of, MergeAt: est.MergeAt})
	}
	return h.reply(ctx, c.key(), c.repo, c.number, statusReply(c.login, lines))
}
