package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/queue"
)

// idleRow is the idle cost of one store with one number of idle queues,
// over the rounds (consecutive windows on the same service).
type idleRow struct {
	Store  string
	Queues int
	// Repos is the number of repositories the idle queues are on (1: a
	// target branch each of the load repository).
	Repos int
	// Replicas is the number of servers on the database (1 on SQLite).
	Replicas int
	// Statements are the statements the servers sent to the database a
	// second (the stores' counts: queries, writes, transactions' begin
	// and end), on both stores.
	Statements series
	// Xacts are PostgreSQL's committed transactions a second (every
	// statement outside a transaction is one) of the whole server,
	// from pg_stat_database; empty on SQLite, which has no such count.
	Xacts series
	// Rows are the rows PostgreSQL read a second (tup_returned).
	Rows series
	// CPU is the process's CPU time (user and system) over the window, in
	// percent of one core: the server, and this command idling.
	CPU series
	// Calls are the GitHub API calls a minute (git requests included).
	Calls series
}

// parseIdleQueues parses -idle-queues: a comma-separated list of queue
// counts, each at least 1 ("" for none).
func parseIdleQueues(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 1_000_000 {
			return nil, fmt.Errorf("-idle-queues: want a comma-separated list of queue counts from 1 to 1,000,000, got %q", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseIdleRepos parses -idle-repos: the most repositories the idle
// queues are spread over, from 1 (every idle queue on the load
// repository) to 100,000.
func parseIdleRepos(n int) (int, error) {
	if n < 1 || n > 100_000 {
		return 0, fmt.Errorf("-idle-repos: want a number of repositories from 1 to 100,000, got %d", n)
	}
	return n, nil
}

// idleRepoCount is how many repositories n idle queues are spread over
// with -idle-repos max: one per queue up to max.
func idleRepoCount(n, max int) int { return min(n, max) }

// idleRepoName is the name of the r-th repository of the idle queues.
func idleRepoName(r int) string { return fmt.Sprintf("idle-%05d", r) }

// idleKey is the key of idle queue i of queues spread over repos
// repositories: a target branch of its own, in the load repository when
// repos is 1 (as an organisation's repositories, they share the one
// installation), else in repository i mod repos (idleRepoName), created
// on the fake GitHub. The branches need not exist: an idle queue reads
// nothing of its branch.
func idleKey(i, repos int) queue.QueueKey {
	name := loadRepo
	if repos > 1 {
		name = idleRepoName(i % repos)
	}
	return queue.QueueKey{Repo: queue.Repo{Host: loadHost, Owner: loadOwner, Name: name}, Branch: fmt.Sprintf("idle-%05d", i)}
}

// measureIdle starts a service of its own on the store of pg ("" for
// SQLite), creates n queues besides the load queue (through the queue
// service, as createQueue does: stored, then woken) on repos
// repositories (idleKey; those beyond the load repository created on the
// fake GitHub first), lets the wake-ups settle, and then measures rounds consecutive windows of window each
// with nothing to do: the database's transactions and rows read a second
// (PostgreSQL), the process's CPU and the GitHub calls a minute.
func measureIdle(ctx context.Context, n, repos, rounds int, window, reconcile time.Duration, pg, testBranches string, progress func(string, ...any)) (idleRow, error) {
	row := idleRow{Store: storeLabel(ctx, pg), Queues: n, Repos: repos, Replicas: 1}
	s, err := startService(ctx, nil, reconcile, 1, nil, pg, testBranches)
	if err != nil {
		return row, err
	}
	defer s.Close()
	if repos > 1 {
		start := time.Now()
		for r := range repos {
			if err := s.env.Fake.CreateRepo(loadOwner, idleRepoName(r), map[string]string{"README.md": "idle\n"}); err != nil {
				return row, fmt.Errorf("failed to create idle repository %d: %w", r, err)
			}
		}
		progress("%d repositories created on the fake GitHub in %s", repos, time.Since(start).Round(time.Millisecond))
	}
	svc := s.env.App().Service()
	for i := range n {
		if _, err := svc.CreateQueue(ctx, idleKey(i, repos), queue.DefaultSettings()); err != nil {
			return row, fmt.Errorf("failed to create idle queue %d: %w", i, err)
		}
	}
	progress("%d idle queues on %d repositories created on %s; settling", n, repos, row.Store)
	f := s.env.Fake
	apps := []*app.App{s.env.App()}
	if pg != "" {
		// On PostgreSQL, two replicas (database.replicas): they divide
		// the queues, beat and renew their leases.
		r, err := s.env.StartReplica(ctx)
		if err != nil {
			return row, err
		}
		defer func() { _ = r.Stop() }()
		apps = append(apps, r.App())
		row.Replicas = 2
	}
	var counted []interface{ Statements() int64 }
	for _, a := range apps {
		c, ok := a.Store().(interface{ Statements() int64 })
		if !ok {
			return row, fmt.Errorf("the %s store does not count its statements", row.Store)
		}
		counted = append(counted, c)
	}
	statements := func() int64 {
		var n int64
		for _, c := range counted {
			n += c.Statements()
		}
		return n
	}
	// Settled: no GitHub call and hardly a statement (a heartbeat, a
	// reconciler pass) for a quiet interval: the wake-ups of the new
	// queues and the replica's first stall-watch pass (which reads every
	// queue once) are done; or two reconcile intervals and a minute
	// passed (a queue that syncs at every interval never goes quiet).
	quiet := min(2*time.Second, reconcile)
	settle := time.Now().Add(2*reconcile + time.Minute)
	last, lastStatements := totalCalls(f.CallCounts()), statements()
	for time.Now().Before(settle) {
		select {
		case <-ctx.Done():
			return row, ctx.Err()
		case <-time.After(quiet): // a quiet interval
		}
		c, st := totalCalls(f.CallCounts()), statements()
		if c == last && st-lastStatements <= quietStatements {
			break
		}
		last, lastStatements = c, st
	}
	var db *sql.DB
	if pg != "" {
		if db, err = sql.Open("pgx", pg); err != nil {
			return row, fmt.Errorf("failed to connect for pg_stat_database: %w", err)
		}
		defer func() { _ = db.Close() }()
	}
	for round := range rounds {
		progress("round %d/%d: idle cost of %d queues on %s (%s)", round+1, rounds, n, row.Store, window)
		x0, r0, err := pgCounters(ctx, db)
		if err != nil {
			return row, err
		}
		before := f.CallCounts()
		c0, cpu0, st0, t0 := totalCalls(before), cpuTime(), statements(), time.Now()
		select {
		case <-ctx.Done():
			return row, ctx.Err()
		case <-time.After(window): // the idle window measured
		}
		after := f.CallCounts()
		c1, cpu1, st1, el := totalCalls(after), cpuTime(), statements(), time.Since(t0)
		for _, k := range slices.Sorted(maps.Keys(after)) {
			if d := after[k] - before[k]; d > 0 {
				progress("  %6d %s", d, k)
			}
		}
		x1, r1, err := pgCounters(ctx, db)
		if err != nil {
			return row, err
		}
		if db != nil {
			row.Xacts = append(row.Xacts, float64(x1-x0)/el.Seconds())
			row.Rows = append(row.Rows, float64(r1-r0)/el.Seconds())
		}
		row.Statements = append(row.Statements, float64(st1-st0)/el.Seconds())
		row.CPU = append(row.CPU, 100*(cpu1-cpu0).Seconds()/el.Seconds())
		row.Calls = append(row.Calls, float64(c1-c0)/el.Minutes())
	}
	return row, nil
}

// quietStatements is the most statements a settled service sends in a
// quiet interval (heartbeats, role and lease renewals, a reconciler pass).
const quietStatements = 20

// totalCalls sums the fake GitHub's call counts.
func totalCalls(counts map[string]int) int {
	n := 0
	for _, v := range counts {
		n += v
	}
	return n
}

// pgCounters reads the server's committed transactions and rows returned
// of the current database, after flushing this backend's statistics (0, 0
// without db). The two statements of the reading count themselves.
func pgCounters(ctx context.Context, db *sql.DB) (xacts, rows int64, err error) {
	if db == nil {
		return 0, 0, nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("failed to connect for pg_stat_database: %w", err)
	}
	defer func() { _ = conn.Close() }()
	// Statistics are cumulated by each backend and reported at most every
	// second (PostgreSQL 15: stats_fetch_consistency, pgstat flush); a
	// snapshot is read at the first access of a transaction.
	if _, err := conn.ExecContext(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
		return 0, 0, fmt.Errorf("failed to clear the statistics snapshot: %w", err)
	}
	err = conn.QueryRowContext(ctx, "SELECT xact_commit, tup_returned FROM pg_stat_database WHERE datname = current_database()").Scan(&xacts, &rows)
	if err != nil {
		return 0, 0, fmt.Errorf("failed to read pg_stat_database: %w", err)
	}
	return xacts, rows, nil
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measureIdleRows measures the idle cost of every count of queues on
// every store.
func measureIdleRows(ctx context.Context, o options, progress func(string, ...any)) ([]idleRow, error) {
	var rows []idleRow
	for _, n := range o.idleQueues {
		for _, pg := range storesOf(o.postgres) {
			r, err := measureIdle(ctx, n, idleRepoCount(n, o.idleRepos), o.rounds, o.idleWindow, o.reconcile, pg, o.builders[0], progress)
			if err != nil {
				return nil, fmt.Errorf("failed to measure the idle cost of %d queues: %w", n, err)
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// reportIdle prints the idle cost, one line per store and count of queues.
func reportIdle(w io.Writer, o options, rows []idleRow) {
	where := "each on a target branch of its own of the load repository"
	if o.idleRepos > 1 {
		where = fmt.Sprintf("each on a target branch of its own, spread over one repository per queue up to %s repositories created on the fake GitHub", thousands(int64(o.idleRepos)))
	}
	fmt.Fprintf(w, "Idle cost: a service with N idle queues (created through the queue service, as createQueue creates them, "+
		"%s), measured over %d consecutive window%s of %s after the wake-ups settled "+
		"(reconcile interval %s; on PostgreSQL two replicas share the database, database.replicas on); medians, smallest and largest window in brackets. Database statements are those the servers sent "+
		"(counted by the store's driver: every query and write, every transaction's begin and end); database transactions and rows read are "+
		"PostgreSQL's (pg_stat_database of the run's database: every statement outside a transaction is one transaction, "+
		"this command's readings included); SQLite has no such count.\n\n",
		where, o.rounds, plural(o.rounds), o.idleWindow, o.reconcile)
	fmt.Fprintln(w, "| store | idle queues | repositories | database statements a second | database transactions a second | rows read a second | process CPU (% of a core) | GitHub calls a minute |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		xacts, tuples := "—", "—"
		if len(r.Xacts) > 0 {
			xacts, tuples = spreadOf(r.Xacts, "%.1f", 1), spreadOf(r.Rows, "%s", 0)
		}
		store := r.Store
		if r.Replicas > 1 {
			store = fmt.Sprintf("%s, %d replicas", store, r.Replicas)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", store, thousands(int64(r.Queues)), thousands(int64(r.Repos)), spreadOf(r.Statements, "%.1f", 1), xacts, tuples, spreadOf(r.CPU, "%.1f %%", 1), spreadOf(r.Calls, "%.1f", 1))
	}
	fmt.Fprintln(w)
}
