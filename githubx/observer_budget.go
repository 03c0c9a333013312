package githubx

import "time"

// BudgetObserver is the optional part of an Observer (WithObserver) told
// how each installation spends its budget (Budget). Its methods run with
// the installation's budget locked: they must be quick, must not call the
// Client, and must be safe for concurrent use. Nothing passed holds an
// installation, a repository or a token.
type BudgetObserver interface {
	// ObserveBudgetWait is told of every grant: how long the request
	// waited for it, and for what.
	ObserveBudgetWait(BudgetWait)
	// ObserveBudgetUse is told what an installation's windows hold after a
	// grant.
	ObserveBudgetUse(BudgetUse)
	// ObserveLimitPause is told of every answer GitHub refused with a rate
	// limit, and of the pause of the installation it caused.
	ObserveLimitPause(LimitPause)
}

// BudgetWait is one grant of budget.
type BudgetWait struct {
	// Class is the request's class; Write says whether it generates
	// content (else it is a read).
	Class WriteClass
	Write bool
	// Reserved is a write sent with a reservation (ReserveWrite), which
	// waited for its budget before it was composed.
	Reserved bool
	// Waited is the time from asking to the grant (0: at once).
	Waited time.Duration
	// Reason is what it waited for last: WaitPause, WaitConcurrency,
	// WaitPoints, WaitWrites; "" when it did not wait.
	Reason string
}

// BudgetUse is what an installation's windows hold, beside its budget.
type BudgetUse struct {
	InFlight        int
	Points          int
	WritesPerMinute int
	WritesPerHour   int
	Budget          Budget
}

// Kinds of rate limit (LimitPause.Kind).
const (
	LimitSecondary = "secondary"
	LimitPrimary   = "primary"
)

// LimitPause is one answer refused with a rate limit and the pause of the
// installation it caused.
type LimitPause struct {
	// Kind is LimitSecondary or LimitPrimary.
	Kind string
	// Status is GitHub's status code (403 or 429).
	Status int
	// Pause is how long every request of the installation now waits, from
	// the refusal on; Strikes counts the consecutive secondary limits (the
	// pause doubles with each).
	Pause   time.Duration
	Strikes int
}
