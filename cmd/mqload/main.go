// Command mqload measures the service under load on loopback: it starts
// the real server (app.App, wired as `bot serve` wires it, on SQLite in a
// temporary directory) with its fake GitHub, fills a queue, and measures
// with its own load generator (keep-alive clients sending back to back for
// a fixed time, every latency recorded) the REST point read
// (getSubmittedPullRequest), getQueue, /healthz and signed webhook ingest,
// each beside an empty Go handler answering `{}` on a server with the same
// settings, measured in the same round. It also counts the GitHub calls
// per merged PR of a burst of PRs. It prints Markdown: medians over the
// rounds with their spread, and the machine.
//
//	go run ./cmd/mqload                       # docs/performance.md, "Service"
//	go run ./cmd/mqload -only getSubmittedPullRequest -rounds 1 -duration 10s -cpuprofile cpu.out
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/mergequeue/mq/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// options are the parsed flags.
type options struct {
	rounds      int
	duration    time.Duration
	clients     int
	senders     int
	entries     int
	prs         int
	concurrency int
	reconcile   time.Duration
	only        []string
	cpuProfile  string
	memProfile  string
	verbose     bool
	postgres    string   // a postgres:// URL: the server runs on PostgreSQL
	builders    []string // github.test_branches of the writes figure, one column pair each
	args        []string // as given, for the report

	// Figures on services of their own (cimerge.go, idle.go).
	mergePRs   int           // PRs per round of ci-to-merge
	idleQueues []int         // queue counts of idle
	idleRepos  int           // the most repositories idle queues are spread over
	idleWindow time.Duration // the window of idle
}

// warmup is the unrecorded time before each figure's window.
func (o options) warmup() time.Duration {
	return min(o.duration/5, 500*time.Millisecond)
}

// wants reports whether figure key is to be measured.
func (o options) wants(key string) bool {
	return len(o.only) == 0 || slices.Contains(o.only, key)
}

// commandLine is the command that reproduces the run.
// The URL of -postgres is shown as $MQ_TEST_POSTGRES_URL: it names a
// server of the machine measured, with perhaps a password.
func (o options) commandLine() string {
	args := slices.Clone(o.args)
	for i, a := range args {
		switch {
		case (a == "-postgres" || a == "--postgres") && i+1 < len(args):
			args[i+1] = "$MQ_TEST_POSTGRES_URL"
		case strings.HasPrefix(a, "-postgres=") || strings.HasPrefix(a, "--postgres="):
			args[i] = a[:strings.Index(a, "=")+1] + "$MQ_TEST_POSTGRES_URL"
		}
	}
	return strings.TrimSpace("go run ./cmd/mqload " + strings.Join(args, " "))
}

func parse(args []string, stderr io.Writer) (options, error) {
	o := options{args: args}
	fs := flag.NewFlagSet("mqload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: mqload [flags]

Starts the merge queue (the real server, on SQLite in a temporary directory,
or on PostgreSQL with -postgres)
on loopback with its fake GitHub, fills a queue, and measures under load:
getSubmittedPullRequest (many clients and one), getQueue, /healthz and signed
webhook ingest, each beside an empty Go handler answering {} in the same
round; then the GitHub calls per merged PR of a burst of PRs. Prints Markdown
tables: medians over the rounds with their spread, and the machine.

Figures (for -only): `+strings.Join(figureKeys, ", ")+`

flags:
`)
		fs.PrintDefaults()
	}
	fs.IntVar(&o.rounds, "rounds", 3, "rounds: every figure is measured once per round")
	fs.DurationVar(&o.duration, "duration", 3*time.Second, "how long each load figure is measured per round (after a warm-up of a fifth of it, at most 500ms)")
	fs.IntVar(&o.clients, "clients", 16, "keep-alive clients of the REST and /healthz figures (and of the empty handler)")
	fs.IntVar(&o.senders, "senders", 8, "keep-alive senders of the webhook figure")
	fs.IntVar(&o.entries, "entries", 100, "PRs queued for the read figures (getQueue lists them all)")
	fs.IntVar(&o.prs, "prs", 20, "PRs of the burst the writes figure merges")
	fs.IntVar(&o.mergePRs, "merge-prs", 50, "PRs per round of the ci-to-merge figure (measured on SQLite and, with -postgres, on PostgreSQL)")
	idle := fs.String("idle-queues", "", "comma-separated counts of idle queues whose idle cost is measured (e.g. 100,10000; on SQLite and, with -postgres, on PostgreSQL); default none")
	fs.DurationVar(&o.idleWindow, "idle-window", time.Minute, "how long the idle cost is measured per round")
	fs.IntVar(&o.idleRepos, "idle-repos", 1, "spread the idle queues over one repository each, up to this many repositories (created on the fake GitHub); 1: every idle queue on a branch of the load repository")
	fs.IntVar(&o.concurrency, "concurrency", 4, "concurrency of the queues")
	fs.DurationVar(&o.reconcile, "reconcile-interval", 30*time.Second, "the engine's reconcile interval (as engine.reconcile_interval; 30s is the default of bot serve)")
	only := fs.String("only", "", "comma-separated figures to measure (default: all); the empty handler is always measured with a load figure")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run (server and load generator: one process) to this file")
	fs.StringVar(&o.memProfile, "memprofile", "", "write an allocation profile of the whole run to this file (go tool pprof -sample_index=alloc_space)")
	fs.StringVar(&o.postgres, "postgres", "", "run the server on PostgreSQL: a postgres:// URL of a user that may create schemas (each server of the run gets a new schema, dropped after); default SQLite")
	builders := fs.String("test-branches", "rest,git", "comma-separated test branch builders (github.test_branches: rest, git) the writes figure is measured with, side by side; the load figures use the first")
	fs.BoolVar(&o.verbose, "v", false, "print progress and the server's logs (JSON) to stderr")
	err := fs.Parse(args)
	if err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch {
	case o.rounds < 1:
		return o, fmt.Errorf("-rounds must be at least 1, got %d", o.rounds)
	case o.duration <= 0:
		return o, fmt.Errorf("-duration must be positive, got %s", o.duration)
	case o.clients < 1 || o.senders < 1:
		return o, fmt.Errorf("-clients and -senders must be at least 1")
	case o.entries < 1 || o.prs < 1 || o.mergePRs < 1:
		return o, fmt.Errorf("-entries, -prs and -merge-prs must be at least 1")
	case o.concurrency < 1:
		return o, fmt.Errorf("-concurrency must be at least 1, got %d", o.concurrency)
	case o.reconcile < 100*time.Millisecond:
		return o, fmt.Errorf("-reconcile-interval must be at least 100ms, got %s", o.reconcile)
	}
	if o.idleQueues, err = parseIdleQueues(*idle); err != nil {
		return o, err
	}
	if o.idleRepos, err = parseIdleRepos(o.idleRepos); err != nil {
		return o, err
	}
	if o.idleWindow < time.Second {
		return o, fmt.Errorf("-idle-window must be at least 1s, got %s", o.idleWindow)
	}
	o.builders = nil
	for _, b := range strings.Split(*builders, ",") {
		b = strings.TrimSpace(b)
		if b != app.TestBranchesREST && b != app.TestBranchesGit || slices.Contains(o.builders, b) {
			return o, fmt.Errorf("-test-branches: want a list of %q and %q, got %q", app.TestBranchesREST, app.TestBranchesGit, *builders)
		}
		o.builders = append(o.builders, b)
	}
	if *only != "" {
		for _, k := range strings.Split(*only, ",") {
			k = strings.TrimSpace(k)
			if !slices.Contains(figureKeys, k) {
				return o, fmt.Errorf("unknown figure %q in -only (figures: %s)", k, strings.Join(figureKeys, ", "))
			}
			o.only = append(o.only, k)
		}
	}
	return o, nil
}

// run parses args, measures and prints; it returns the exit code: 0, 2
// for a usage error, 1 when a measurement failed.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "mqload:", err)
		return 2
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "mqload:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, "mqload: failed to start the CPU profile:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	if err := measure(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "mqload:", err)
		return 1
	}
	if o.memProfile != "" {
		if err := writeAllocs(o.memProfile); err != nil {
			fmt.Fprintln(stderr, "mqload:", err)
			return 1
		}
	}
	return 0
}

// measure runs every round and prints the report.
func measure(ctx context.Context, o options, stdout, stderr io.Writer) error {
	progress := func(format string, a ...any) {
		if o.verbose {
			fmt.Fprintf(stderr, "mqload: "+format+"\n", a...)
		}
	}
	loadAvg := loadAverage()
	var logs io.Writer
	if o.verbose {
		logs = stderr
	}
	var rows []loadRow
	needLoad := slices.ContainsFunc(figureKeys, func(k string) bool { return !slices.Contains(ownServiceFigures, k) && o.wants(k) })
	if needLoad {
		empty, err := startEmptyServer()
		if err != nil {
			return err
		}
		defer empty.Close()
		progress("starting the service and queuing %d PRs", o.entries)
		svc, err := startService(ctx, logs, o.reconcile, o.concurrency, nil, o.postgres, o.builders[0])
		if err != nil {
			return err
		}
		defer svc.Close()
		if err := svc.fill(ctx, o.entries); err != nil {
			return err
		}
		var payloads [][]byte
		if o.wants("webhooks") {
			if payloads, err = svc.statusPayloads(ctx); err != nil {
				return err
			}
		}
		if err := svc.waitInboxDrained(ctx); err != nil {
			return err
		}
		figs := []figure{svc.pointReadFigure("getSubmittedPullRequest", o.clients), svc.pointReadFigure("getSubmittedPullRequest-1", 1),
			svc.getQueueFigure(o.clients), svc.healthzFigure(o.clients)}
		figs = slices.DeleteFunc(figs, func(f figure) bool { return !o.wants(f.Key) })
		m := newMeasurement(o, empty)
		for round := range o.rounds {
			list := slices.Clone(figs)
			if o.wants("webhooks") {
				list = append(list, svc.webhookFigure(payloads, o.senders, round))
			}
			for _, f := range list {
				progress("round %d/%d: %s", round+1, o.rounds, f.Name)
				if err := m.measure(ctx, f); err != nil {
					return err
				}
			}
		}
		rows = m.rows()
	}
	var writes *writeRow
	if o.wants("writes") {
		writes = &writeRow{Builders: o.builders, Single: make([]writeSeries, len(o.builders)), Batched: make([]writeSeries, len(o.builders)),
			FastForward: make([]writeSeries, len(o.builders))}
		for round := range o.rounds {
			for b, builder := range o.builders {
				for i, batch := range []int{0, writesBatch, writesBatch} {
					ff := i == 2 // landing by fast-forward (fastForwardLanding)
					progress("round %d/%d: GitHub calls per merged PR (%d PRs, batches of %d, test branches: %s, fast-forward landing: %v)", round+1, o.rounds, o.prs, max(batch, 1), builder, ff)
					w, err := measureWrites(ctx, o.prs, o.concurrency, batch, ff, o.reconcile, o.postgres, builder)
					if err != nil {
						return err
					}
					if o.verbose {
						routes := slices.Sorted(maps.Keys(w.ByRoute))
						for _, k := range routes {
							fmt.Fprintf(stderr, "mqload:   %5d %s\n", w.ByRoute[k], k)
						}
					}
					wr, calls := w.PerMerge()
					sc := []*writeSeries{&writes.Single[b], &writes.Batched[b], &writes.FastForward[b]}[i]
					sc.Writes = append(sc.Writes, wr)
					sc.Calls = append(sc.Calls, calls)
					sc.Git = append(sc.Git, float64(w.Git)/float64(max(w.Merged, 1)))
					sc.Took = append(sc.Took, w.Took.Seconds())
				}
			}
		}
	}
	var ciMerge []ciMergeRow
	if o.wants("ci-to-merge") {
		var err error
		if ciMerge, err = measureCIToMergeRows(ctx, o, progress); err != nil {
			return err
		}
	}
	var idleRows []idleRow
	if o.wants("idle") && len(o.idleQueues) > 0 {
		var err error
		if idleRows, err = measureIdleRows(ctx, o, progress); err != nil {
			return err
		}
	}
	report(stdout, o, rows, writes, loadAvg)
	if ciMerge != nil {
		reportCIToMerge(stdout, o, ciMerge)
	}
	if idleRows != nil {
		reportIdle(stdout, o, idleRows)
	}
	return nil
}

// writeAllocs writes the allocation profile of the run so far.
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("failed to create the allocation profile: %w", err)
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		_ = f.Close()
		return fmt.Errorf("failed to write the allocation profile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("failed to write the allocation profile: %w", err)
	}
	return nil
}
