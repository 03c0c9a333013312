package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue"
)

// writesBatch is the batch size of the second writes figure.
const writesBatch = 4

// writeCount is what merging a burst of PRs cost in GitHub calls.
type writeCount struct {
	Merged int
	// Writes are the content-creating calls: every call but a GET, less
	// the installation-token POSTs (authentication, not content).
	Writes int
	// Calls are every API call the queue made (REST and GraphQL),
	// installation tokens included.
	Calls int
	// Git counts the git smart HTTP requests (fetches and pushes of the
	// git builder): neither API calls nor content-creating, as on GitHub.
	Git int
	// Took is the time from the first submission to the last branch
	// cleaned up.
	Took time.Duration
	// ByRoute counts the calls by route ("METHOD /path pattern").
	ByRoute map[string]int
}

// PerMerge returns writes and calls per merged PR.
func (w writeCount) PerMerge() (writes, calls float64) {
	if w.Merged == 0 {
		return 0, 0
	}
	return float64(w.Writes) / float64(w.Merged), float64(w.Calls) / float64(w.Merged)
}

// isWrite tells a content-creating call from a CallCounts key ("METHOD
// /path pattern").
func isWrite(key string) bool {
	return !strings.HasPrefix(key, "GET ") && !isGit(key) && !strings.Contains(key, "access_tokens")
}

// isGit tells a git smart HTTP request from a CallCounts key.
func isGit(key string) bool { return strings.HasPrefix(key, "GIT ") }

// measureWrites starts a service of its own (a queue of concurrency,
// batches of batch when above 1, landing by fast-forward when
// fastForward), opens prs PRs, holds CI and submits them all at once, then
// answers CI in queue order: whenever as many runs are pending as can be
// (concurrency, or the PRs left), the oldest passes. It counts the GitHub
// calls from the first submission until every PR merged, the service
// deleted its test branches and the fake GitHub delivered every webhook.
func measureWrites(ctx context.Context, prs, concurrency, batch int, fastForward bool, reconcile time.Duration, pg, testBranches string) (writeCount, error) {
	s, err := startService(ctx, nil, reconcile, concurrency, &app.GitHubBudget{}, pg, testBranches) // GitHub's numbers
	if err != nil {
		return writeCount{}, err
	}
	defer s.Close()
	if batch > 1 {
		if err := s.call(ctx, "updateQueue", map[string]any{"repo": repoJSON(), "targetBranch": loadBranch,
			"batch": true, "batchingMinSize": min(batch, prs), "batchingMaxSize": batch, "batchingMaxWaitTimeMinutes": 1}); err != nil {
			return writeCount{}, err
		}
	}
	if fastForward {
		if err := s.call(ctx, "updateQueue", map[string]any{"repo": repoJSON(), "targetBranch": loadBranch,
			"mergeMethod": "merge_commit", "fastForwardLanding": true}); err != nil {
			return writeCount{}, err
		}
	}
	f := s.env.Fake
	if err := s.openPRs(prs, "burst"); err != nil {
		return writeCount{}, err
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := f.WaitWebhooksIdle(wctx); err != nil {
		return writeCount{}, err
	}
	f.SetCIHold(true)
	before := f.CallCounts()
	start := time.Now()
	for _, pr := range s.prs {
		if err := s.submit(ctx, pr); err != nil {
			return writeCount{}, err
		}
	}
	merged := 0
	bound := 2*time.Minute + time.Duration(prs)*5*time.Second
	err = waitFor(ctx, bound, fmt.Sprintf("%d PRs merged", prs), func() (bool, error) {
		n, err := s.countMerged(ctx)
		if err != nil {
			return false, err
		}
		merged = n
		pending := f.PendingCI()
		units := prs - merged // the runs still to come: one per PR, or per batch
		if batch > 1 {
			units = (units + batch - 1) / batch
		}
		if len(pending) > 0 && len(pending) >= min(concurrency, units) {
			slices.SortFunc(pending, func(a, b fakegithub.CIRun) int { return cmp.Compare(a.ID, b.ID) })
			if err := f.CompleteCI(pending[0].Repo, pending[0].SHA, true); err != nil {
				return false, err
			}
		}
		return merged == prs, nil
	})
	if err != nil {
		return writeCount{}, err
	}
	// The ended test branches go in batches: wait for the last one.
	err = waitFor(ctx, 3*reconcile+time.Minute, "the test branches to be deleted", func() (bool, error) {
		return len(f.BranchesWithPrefix(loadOwner, loadRepo, queue.DefaultTestBranchPrefix)) == 0, nil
	})
	if err != nil {
		return writeCount{}, err
	}
	idle, cancelIdle := context.WithTimeout(ctx, time.Minute)
	defer cancelIdle()
	if err := f.WaitWebhooksIdle(idle); err != nil {
		return writeCount{}, err
	}
	w := writeCount{Merged: merged, Took: time.Since(start), ByRoute: map[string]int{}}
	for k, v := range f.CallCounts() {
		d := v - before[k]
		if d != 0 {
			w.ByRoute[k] = d
		}
		if isGit(k) {
			w.Git += d
			continue
		}
		w.Calls += d
		if isWrite(k) {
			w.Writes += d
		}
	}
	return w, nil
}

// countMerged counts the submitted PRs in state merged.
func (s *service) countMerged(ctx context.Context) (int, error) {
	n := 0
	for _, pr := range s.prs {
		var e struct {
			State string `json:"state"`
		}
		err := s.get(ctx, "getSubmittedPullRequest", map[string]any{"repo": repoJSON(), "targetBranch": loadBranch, "pr": map[string]any{"number": pr}}, &e)
		if err != nil {
			return 0, err
		}
		if e.State == string(queue.StateMerged) {
			n++
		}
	}
	return n, nil
}
