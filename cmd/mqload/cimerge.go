package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// ciMergeRow is the CI-to-merge figure of one store over the rounds.
type ciMergeRow struct {
	Store    string
	P50, P99 series // milliseconds, one value per round
	PRs      int    // PRs measured per round
}

// measureCIToMerge starts a service of its own on the store of pg (""
// for SQLite), opens prs PRs, holds CI and submits them all, then, PR
// after PR in queue order, sends the final CI result of the head's run
// (the fake GitHub posts the passing status and delivers its signed
// webhook) and waits until the fake GitHub has merged the PR (PUT
// /pulls/N/merge). Each latency is from just before the result is posted
// to the merge as the fake GitHub recorded it; sorted, ascending (the PR's merged_at, taken
// by the fake when it handles the merge call), so that the polling here
// adds nothing to it. Before each result it waits until as many runs are
// pending as the queue's concurrency allows, as CI in queue order would.
func measureCIToMerge(ctx context.Context, prs, concurrency int, reconcile time.Duration, pg, testBranches string) ([]time.Duration, error) {
	s, err := startService(ctx, nil, reconcile, concurrency, nil, pg, testBranches)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	f := s.env.Fake
	if err := s.openPRs(prs, "merge"); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := f.WaitWebhooksIdle(wctx); err != nil {
		return nil, fmt.Errorf("failed waiting for the PRs' webhooks: %w", err)
	}
	f.SetCIHold(true)
	for _, pr := range s.prs {
		if err := s.submit(ctx, pr); err != nil {
			return nil, err
		}
	}
	var took []time.Duration
	for k, pr := range s.prs {
		var head fakegithub.CIRun
		err := waitFor(ctx, time.Minute, fmt.Sprintf("the run of PR #%d to start", pr), func() (bool, error) {
			pending := f.PendingCI()
			if len(pending) == 0 || len(pending) < min(concurrency, prs-k) {
				return false, nil
			}
			head = slices.MinFunc(pending, func(a, b fakegithub.CIRun) int { return cmp.Compare(a.ID, b.ID) })
			return true, nil
		})
		if err != nil {
			return nil, err
		}
		sent := time.Now()
		if err := f.CompleteCI(head.Repo, head.SHA, true); err != nil {
			return nil, err
		}
		var merged time.Time
		err = waitFor(ctx, time.Minute, fmt.Sprintf("PR #%d to be merged", pr), func() (bool, error) {
			p, err := f.PR(loadOwner, loadRepo, pr)
			if err != nil {
				return false, err
			}
			if !p.GetMerged() {
				return false, nil
			}
			merged = p.GetMergedAt().Time
			return true, nil
		})
		if err != nil {
			return nil, err
		}
		if merged.Before(sent) {
			return nil, fmt.Errorf("PR #%d was merged before its CI result was sent (run %d on %s)", pr, head.ID, head.Branch)
		}
		took = append(took, merged.Sub(sent))
	}
	slices.Sort(took)
	return took, nil
}

// storesOf lists the stores a figure measured on every store runs on:
// SQLite, then PostgreSQL when pg is set.
func storesOf(pg string) []string {
	if pg == "" {
		return []string{""}
	}
	return []string{"", pg}
}

// measureCIToMergeRows measures the CI-to-merge figure on every store,
// the stores in turn within each round.
func measureCIToMergeRows(ctx context.Context, o options, progress func(string, ...any)) ([]ciMergeRow, error) {
	stores := storesOf(o.postgres)
	rows := make([]ciMergeRow, len(stores))
	for i, pg := range stores {
		rows[i] = ciMergeRow{Store: storeLabel(ctx, pg), PRs: o.mergePRs}
	}
	for round := range o.rounds {
		for i, pg := range stores {
			progress("round %d/%d: time from a CI result to the merge call (%d PRs, %s)", round+1, o.rounds, o.mergePRs, rows[i].Store)
			took, err := measureCIToMerge(ctx, o.mergePRs, o.concurrency, o.reconcile, pg, o.builders[0])
			if err != nil {
				return nil, fmt.Errorf("failed to measure the time from a CI result to the merge call: %w", err)
			}
			rows[i].P50 = append(rows[i].P50, ms(percentile(took, 50)))
			rows[i].P99 = append(rows[i].P99, ms(percentile(took, 99)))
		}
	}
	return rows, nil
}

// reportCIToMerge prints the CI-to-merge figure, one line per store.
func reportCIToMerge(w io.Writer, o options, rows []ciMergeRow) {
	fmt.Fprintf(w, "Time from a CI result to the merge call: %d PRs per round submitted at once to a queue of concurrency %d (test branches: %s), "+
		"CI answering in queue order; from just before the fake GitHub posts the head's passing status (and delivers its signed webhook) "+
		"to the fake GitHub handling PUT /pulls/N/merge; p50 and p99 over the PRs of a round, then the median over the rounds.\n\n",
		o.mergePRs, o.concurrency, o.builders[0])
	fmt.Fprintln(w, "| store | p50 | p99 |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s |\n", r.Store, spreadOf(r.P50, "%.1f ms", 1), spreadOf(r.P99, "%.1f ms", 1))
	}
	fmt.Fprintln(w)
}
