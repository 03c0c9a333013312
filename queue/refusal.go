package queue

import "errors"

// RefusalReason says why the queue declines a request.
type RefusalReason string

const (
	// RefusedUnknownPR means GitHub does not know the pull request.
	RefusedUnknownPR RefusalReason = "unknown_pr"
	// RefusedNoQueue means no queue targets the branch.
	RefusedNoQueue RefusalReason = "no_queue"
	// RefusedCommandsDisabled means the queue of the PR's base branch takes no
	// PR-comment commands (its commandsEnabled setting is off).
	RefusedCommandsDisabled RefusalReason = "commands_disabled"
	// RefusedTestPR means the pull request is one of the queue's own test PRs,
	// which are never queued (IsOwnTestPR).
	RefusedTestPR RefusalReason = "test_pr"
	// RefusedInvalid means the request is invalid (an unknown priority).
	RefusedInvalid RefusalReason = "invalid"
)

// Refusal is the queue declining a request for a reason its caller answers
// (a reply to a command, a 4xx) or keeps quiet about: no failure, and
// nothing changed. Msg says why and is safe to show to users. Err is the
// error the refusal stands for (ErrPRNotFound, ErrNotFound, an
// *InputError, …); Unwrap returns it, so callers that match those errors
// see them through a Refusal.
type Refusal struct {
	Reason RefusalReason
	Msg    string
	Err    error
}

func (r *Refusal) Error() string { return r.Msg }

// Unwrap returns the error the refusal stands for.
func (r *Refusal) Unwrap() error { return r.Err }

// AsRefusal returns the *Refusal in err's chain, if any.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}
