package readside

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/mergequeue/mq/queue"
)

// TestedPR is one pull request a test run tests.
type TestedPR struct {
	Number int
	SHA    string
	Title  string
}

// TestingDetails is what getMergeQueueTestingDetails shows of one run.
type TestingDetails struct {
	Queue *queue.Queue
	Run   *queue.TestRun
	// Checks are the statuses and check runs recorded on the run's commit.
	Checks []queue.CheckResult
	// Tested are the run's pull requests, in queue order.
	Tested []TestedPR
	// DependentPRs are the PR numbers of the entries ahead whose changes the
	// run's base includes and that are still active (what it depends on).
	DependentPRs []int
	// WaitingOn is set when the run succeeded but entries ahead have not
	// merged yet: their PR numbers (nil otherwise).
	WaitingOn []int
	// Targets are the impacted targets uploaded for the tested PRs (any
	// head), by PR number; PRs without an upload are absent.
	Targets map[int]*queue.Targets
	// Union is the union of the tested PRs' targets when every tested PR has
	// targets for the head under test (nil otherwise).
	Union *queue.Targets
	// TestPRNumber is the run's draft test PR (createPrsForTestingBranches;
	// 0 when it has none).
	TestPRNumber int
	// TimesOutAt is when the run, in progress, times out (zero when it is
	// not in progress or the queue has no testing timeout).
	TimesOutAt time.Time
}

// TestingDetails returns a test run of a queue by ID. ErrNotFound if the
// queue is unknown, or the run is unknown or belongs to another queue.
func (r *Reads) TestingDetails(ctx context.Context, key queue.QueueKey, runID string) (*TestingDetails, error) {
	q, err := r.store.GetQueue(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("failed to load queue %s: %w", key, err)
	}
	run, err := r.store.GetRun(ctx, runID)
	if err != nil {
		return nil, fmt.Errorf("failed to load test run %s: %w", runID, err)
	}
	if run.QueueID != q.ID {
		return nil, fmt.Errorf("test run %s is not a run of %s: %w", runID, key, queue.ErrNotFound)
	}
	d := &TestingDetails{Queue: q, Run: run, Targets: map[int]*queue.Targets{}}
	switch rs, err := r.store.GetRunSurface(ctx, runID); {
	case err == nil:
		d.TestPRNumber = rs.PRNumber
	case !errors.Is(err, queue.ErrNotFound):
		return nil, fmt.Errorf("failed to load the test PR of run %s: %w", runID, err)
	}
	if run.SHA != "" {
		if d.Checks, err = r.store.ListChecks(ctx, q.Key.Repo, run.SHA); err != nil {
			return nil, fmt.Errorf("failed to list checks of run %s: %w", runID, err)
		}
		d.Checks = queue.ChecksOfAttempt(run, d.Checks) // a check re-run in place is pending again
		sort.Slice(d.Checks, func(i, j int) bool { return d.Checks[i].Name < d.Checks[j].Name })
	}
	if err := r.describeTested(ctx, d); err != nil {
		return nil, err
	}
	if run.Status == queue.RunInProgress && !run.Closed {
		recent, err := r.store.RecentRuns(ctx, q.ID, queue.HistoryTimeoutRuns)
		if err != nil {
			return nil, fmt.Errorf("failed to list recent runs of %s: %w", key, err)
		}
		d.TimesOutAt = queue.TestingTimeoutFor(q.Settings, recent).TimesOutAt(run)
	}
	for _, id := range run.Ahead {
		e, err := r.store.GetEntryByID(ctx, id)
		if errors.Is(err, queue.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("failed to load entry %s ahead of run %s: %w", id, runID, err)
		}
		if e.Active() {
			d.DependentPRs = append(d.DependentPRs, e.PRNumber)
		}
	}
	if run.Status == queue.RunSucceeded && len(d.DependentPRs) > 0 {
		d.WaitingOn = append([]int{}, d.DependentPRs...)
	}
	return d, nil
}

// describeTested fills Tested, Targets and Union.
func (r *Reads) describeTested(ctx context.Context, d *TestingDetails) error {
	run := d.Run
	union := &queue.Targets{QueueID: d.Queue.ID, List: []string{}}
	known := len(run.PRNumbers) > 0
	seen := map[string]bool{}
	for i, n := range run.PRNumbers {
		pr := TestedPR{Number: n}
		if i < len(run.PRSHAs) {
			pr.SHA = run.PRSHAs[i]
		}
		if i < len(run.EntryIDs) {
			e, err := r.store.GetEntryByID(ctx, run.EntryIDs[i])
			switch {
			case err == nil:
				pr.Title = e.PR.Title
				if pr.SHA == "" {
					pr.SHA = e.PRSHA
				}
			case !errors.Is(err, queue.ErrNotFound):
				return fmt.Errorf("failed to load entry %s of run %s: %w", run.EntryIDs[i], run.ID, err)
			}
		}
		d.Tested = append(d.Tested, pr)
		t, err := r.store.GetTargets(ctx, d.Queue.ID, n)
		if errors.Is(err, queue.ErrNotFound) {
			known = false
			continue
		}
		if err != nil {
			return fmt.Errorf("failed to load impacted targets of #%d: %w", n, err)
		}
		d.Targets[n] = t
		if t.SHA != pr.SHA {
			known = false
			continue
		}
		if t.All {
			union.All = true
		}
		for _, name := range t.List {
			if !seen[name] {
				seen[name] = true
				union.List = append(union.List, name)
			}
		}
		if t.UpdatedAt.After(union.UpdatedAt) {
			union.UpdatedAt = t.UpdatedAt
		}
	}
	if known {
		if union.All {
			union.List = nil
		}
		d.Union = union
	}
	return nil
}
