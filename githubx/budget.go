package githubx

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Budget is the share of GitHub's secondary rate limits one installation
// may use, modelled on GitHub's documentation ("Rate limits for the REST
// API", secondary rate limits): at most Concurrent requests in flight, at
// most PointsPerMinute points per Minute (a GET, HEAD or OPTIONS and a
// GraphQL query cost 1 point; a POST, PATCH, PUT or DELETE and a GraphQL
// mutation 5), and at most WritesPerMinute content-generating requests
// (every REST request that is not a read, and GraphQL mutations) per Minute
// and WritesPerHour per Hour. Zero fields take DefaultBudget's values.
//
// Minute and Hour are the lengths of the windows the counts apply to, and
// Minute is also the pause after a secondary limit GitHub gives no wait
// for; tests scale both the windows and the counts down. The windows slide:
// a request occupies them from the moment it is granted until a window's
// length after its answer came back, so GitHub, whatever moment it counts
// the request at, never sees more than the counts in any window.
type Budget struct {
	// Concurrent bounds the requests in flight (GitHub: 100).
	Concurrent int
	// PointsPerMinute bounds the points of the requests of one Minute
	// (GitHub: 900 for REST).
	PointsPerMinute int
	// WritesPerMinute and WritesPerHour bound the content-generating
	// requests of one Minute and one Hour (GitHub: 80 and 500).
	WritesPerMinute int
	WritesPerHour   int
	// Minute and Hour are the window lengths (1m and 1h).
	Minute time.Duration
	Hour   time.Duration
	// MaxPause caps the exponential backoff after repeated secondary
	// limits (default 15 Minutes); it never shortens the wait GitHub asks.
	MaxPause time.Duration
}

// Points GitHub charges per request against the secondary limit.
const (
	readPoints  = 1
	writePoints = 5
)

// DefaultBudget is GitHub's documented secondary limits.
func DefaultBudget() Budget {
	return Budget{Concurrent: 100, PointsPerMinute: 900, WritesPerMinute: 80, WritesPerHour: 500,
		Minute: time.Minute, Hour: time.Hour, MaxPause: 15 * time.Minute}
}

// WithDefaults fills zero fields: counts and windows from DefaultBudget,
// MaxPause as 15 Minutes.
func (b Budget) WithDefaults() Budget {
	d := DefaultBudget()
	for _, f := range []struct{ v, def *int }{{&b.Concurrent, &d.Concurrent}, {&b.PointsPerMinute, &d.PointsPerMinute},
		{&b.WritesPerMinute, &d.WritesPerMinute}, {&b.WritesPerHour, &d.WritesPerHour}} {
		if *f.v == 0 {
			*f.v = *f.def
		}
	}
	if b.Minute == 0 {
		b.Minute = d.Minute
	}
	if b.Hour == 0 {
		b.Hour = d.Hour
	}
	if b.MaxPause == 0 {
		b.MaxPause = 15 * b.Minute
	}
	return b
}

// Validate reports negative fields, and a budget no request fits in (a
// write costs 5 points, so PointsPerMinute must be at least 5).
func (b Budget) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    int
	}{{"concurrent requests", b.Concurrent}, {"points per minute", b.PointsPerMinute},
		{"writes per minute", b.WritesPerMinute}, {"writes per hour", b.WritesPerHour}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative (got %d)", f.name, f.v))
		}
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"minute", b.Minute}, {"hour", b.Hour}, {"max pause", b.MaxPause}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative (got %v)", f.name, f.v))
		}
	}
	if b.PointsPerMinute > 0 && b.PointsPerMinute < writePoints {
		errs = append(errs, fmt.Errorf("points per minute must be at least %d, the cost of one write (got %d)", writePoints, b.PointsPerMinute))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("invalid GitHub budget: %w", err)
	}
	return nil
}

// WriteClass ranks requests waiting for an installation's budget: a lower
// class is granted first; within a class, requests are granted in the
// order they asked.
type WriteClass int

// Write classes, most important first.
const (
	// ClassMerge: merging a pull request and the refs and commits a test
	// run needs (POST /merges, git refs created or moved, git data).
	ClassMerge WriteClass = iota
	// ClassProgress: anything else that moves the queue forward; a request
	// whose context carries no class is in it.
	ClassProgress
	// ClassSurface: what people see: check runs, comments, reactions,
	// labels, test PRs, and deleting branches nothing needs any more.
	ClassSurface

	numClasses = 3
)

// String names the class for logs and metric labels.
func (c WriteClass) String() string {
	switch c {
	case ClassMerge:
		return "merge"
	case ClassProgress:
		return "progress"
	case ClassSurface:
		return "surface"
	}
	return fmt.Sprintf("class%d", int(c))
}

type writeClassKey struct{}

// WithWriteClass returns ctx with the class its requests wait in for the
// installation's budget (an invalid class counts as ClassProgress).
func WithWriteClass(ctx context.Context, class WriteClass) context.Context {
	return context.WithValue(ctx, writeClassKey{}, class)
}

// writeClassOf is ctx's class (ClassProgress when none or invalid).
func writeClassOf(ctx context.Context) WriteClass {
	if c, ok := ctx.Value(writeClassKey{}).(WriteClass); ok && c >= 0 && c < numClasses {
		return c
	}
	return ClassProgress
}

// Clock is the time source of the budget; tests inject one they move.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed; stop
	// cancels it and reports whether it did.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// WithBudget sets each installation's budget (zero fields: DefaultBudget's).
func WithBudget(b Budget) Option {
	return func(o *options) { o.budget = b }
}

// WithBudgetClock sets the clock of the budget and of secondary-limit
// pauses (default: the real one).
func WithBudgetClock(c Clock) Option {
	return func(o *options) { o.clock = c }
}
