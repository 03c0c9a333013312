package sqlstore

import (
	"context"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// checkColumns lists the checks table's columns after the repository.
func checkColumns(c *queue.CheckResult) []column {
	return []column{
		{"sha", c.SHA, &c.SHA},
		{"kind", string(c.Kind), &c.Kind},
		{"check_name", c.Name, &c.Name},
		{"state", string(c.State), &c.State},
		{"raw", c.Raw, &c.Raw},
		{"url", c.URL, &c.URL},
		{"updated_at", timeVal(c.UpdatedAt), timeScan{&c.UpdatedAt}},
		{"check_run_id", c.CheckRunID, &c.CheckRunID},
		{"check_suite_id", c.SuiteID, &c.SuiteID},
		{"app", c.App, &c.App},
	}
}

var (
	checkCols = checkColumns(&queue.CheckResult{})
	// checkUpsert replaces a stored result unless it is newer than the
	// incoming one (a zero UpdatedAt counts as oldest).
	checkUpsert = `INSERT INTO checks (host, owner, name, ` + selectList(checkCols, "") + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (host, owner, name, sha, kind, check_name) DO UPDATE SET
			state = excluded.state, raw = excluded.raw, url = excluded.url, updated_at = excluded.updated_at,
			check_run_id = excluded.check_run_id, check_suite_id = excluded.check_suite_id, app = excluded.app
		WHERE COALESCE(excluded.updated_at, -9223372036854775808) >= COALESCE(checks.updated_at, -9223372036854775808)`
	checkList = "SELECT " + selectList(checkCols, "") + ` FROM checks
		WHERE host = ? AND owner = ? AND name = ? AND sha = ? ORDER BY kind, check_name`
)

// RecordCheck inserts or replaces the result for (repo, SHA, Kind, Name); a
// result older (UpdatedAt) than the stored one is ignored, an equally old
// one replaces it.
func (o *ops) RecordCheck(ctx context.Context, repo queue.Repo, c queue.CheckResult) error {
	f := repo.Fold() // stored folded: webhooks and reads may spell the repository differently
	args := append([]any{f.Host, f.Owner, f.Name}, columnArgs(checkColumns(&c))...)
	if _, err := o.wr.ExecContext(ctx, checkUpsert, args...); err != nil {
		return fmt.Errorf("failed to record check %s %q on %s@%s: %w", c.Kind, c.Name, repo, c.SHA, err)
	}
	return nil
}

// ListChecks returns every recorded result on a commit of repo, ordered by
// kind and name.
func (o *ops) ListChecks(ctx context.Context, repo queue.Repo, sha string) ([]queue.CheckResult, error) {
	f := repo.Fold()
	rows, err := o.rd.QueryContext(ctx, checkList, f.Host, f.Owner, f.Name, sha)
	if err != nil {
		return nil, fmt.Errorf("failed to list checks on %s@%s: %w", repo, sha, err)
	}
	out, err := collect(rows, func(sc interface{ Scan(...any) error }) (queue.CheckResult, error) {
		var c queue.CheckResult
		err := sc.Scan(columnDests(checkColumns(&c))...)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("failed to list checks on %s@%s: %w", repo, sha, err)
	}
	return out, nil
}
