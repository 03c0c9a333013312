package handlers

import (
	"context"
	"fmt"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// Access is a permission level a command needs.
type Access int

const (
	// AccessWrite is GitHub permission admin, maintain or write.
	AccessWrite Access = iota + 1
	// AccessAdmin is GitHub permission admin.
	AccessAdmin
)

func (a Access) String() string {
	if a == AccessAdmin {
		return "admin"
	}
	return "write"
}

// requiredAccess is the level a command needs: write for every command
// (replies are comments, so even help and status are not open to everyone),
// admin for `merge --direct` and the urgent priority.
func requiredAccess(c Command) Access {
	if c.Kind == CmdMerge && (c.Direct || c.Urgent()) {
		return AccessAdmin
	}
	return AccessWrite
}

// authorize is the one place that decides whether login may do something
// that needs level on repo, whose queue has settings s (nil: none yet). A
// plain submission (submits, at write level) by one of the queue's
// allowedBotSubmitters is allowed outright, but only when the webhook says
// the account is a bot (bot: the payload's user type is "Bot"): a person
// whose login matches a listed entry is asked about like anyone else.
// Anything else asks GitHub's permission API at call time (never trusting
// author_association). It returns false with no error when the user lacks
// the level; an error means GitHub could not be asked.
func authorize(ctx context.Context, gh GitHub, repo queue.Repo, s *queue.Settings, login string, bot bool, level Access, submits bool) (bool, error) {
	if submits && level == AccessWrite && bot && allowedBot(s, login) {
		return true, nil
	}
	perm, err := gh.Permission(ctx, repo, login)
	if err != nil {
		return false, fmt.Errorf("failed to read permission of %s on %s: %w", login, repo.FullName(), err)
	}
	switch perm {
	case "admin":
		return true, nil
	case "maintain", "write":
		return level == AccessWrite, nil
	default:
		return false, nil
	}
}

// allowedBot reports whether login is one of the queue's allowedBotSubmitters
// (logins compare case-insensitively, "[bot]" included, and only entries
// ending in "[bot]" count: one stored before that rule cannot name a
// person): such a bot may submit with a plain merge (comment or label)
// without the permission check, never with --direct or the urgent
// priority, which stay admin-only.
func allowedBot(s *queue.Settings, login string) bool {
	if s == nil || !strings.HasSuffix(strings.ToLower(login), "[bot]") {
		return false
	}
	for _, b := range s.AllowedBotSubmitters {
		if strings.EqualFold(b, login) {
			return true
		}
	}
	return false
}
