package queue

import "strings"

// CommandTarget is what a PR-comment command acts on, each read once for
// the command: the pull request as GitHub reports it, and the queue of its
// base branch (nil when no queue targets that branch).
type CommandTarget struct {
	Repo  Repo
	PR    PullRequest
	Queue *Queue
}

// Key is the queue key of the pull request's base branch.
func (t *CommandTarget) Key() QueueKey { return QueueKey{Repo: t.Repo, Branch: t.PR.BaseBranch} }

// Settings are the settings of the target's queue; nil without a queue.
func (t *CommandTarget) Settings() *Settings {
	if t.Queue == nil {
		return nil
	}
	return &t.Queue.Settings
}

// IsOwnTestPR reports whether a pull request whose head branch is headRef
// is one of the own test PRs of the queue with settings s (nil: no queue,
// so none): its head is under the queue's test branch prefix. Such a pull
// request is never queued; commands and labels on it are ignored.
func IsOwnTestPR(s *Settings, headRef string) bool {
	return s != nil && headRef != "" && strings.HasPrefix(headRef, s.EffectiveTestBranchPrefix())
}
