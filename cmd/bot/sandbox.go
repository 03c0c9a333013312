package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/app/sandbox"
	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers/api"
	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/queue"
)

const (
	demoOwner = "demo"
	demoRepo  = "app"
	demoUser  = "alice" // has write access to demo/app
)

// defaultCITime paces the sandbox's simulated CI so a person can follow
// each run on the dashboard.
const defaultCITime = 15 * time.Second

// sandbox runs the product on a local fake GitHub with simulated CI, opens
// a few pull requests (one of which fails CI), submits them by REST and by
// comment, prints what happens and, once the demo is over, how to go on by
// hand; it runs until ctx ends.
func runSandbox(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sandbox", "sandbox [--addr 127.0.0.1:8080] [--ci-time 15s] [--dir DIR] [--verbose]",
		"Runs the whole product locally: a fake GitHub (real git repositories, simulated\n"+
			"CI that fails a tree with a root FAIL file) and the merge queue wired to it.\n"+
			"It opens and queues four demo pull requests, prints every state change, then\n"+
			"prints a token and curl commands to open, comment on and label pull requests\n"+
			"yourself. Ctrl-C stops it.")
	addr := fs.String("addr", "127.0.0.1:8080", "address of the merge queue (REST API, dashboard, webhooks)")
	fakeAddr := fs.String("github-addr", "127.0.0.1:0", "address of the fake GitHub")
	dir := fs.String("dir", "", "directory for the database and git repositories (default: a temporary one)")
	ciTime := fs.Duration("ci-time", defaultCITime, "how long each simulated CI run takes (0: CI finishes at once)")
	verbose := fs.Bool("verbose", false, "print the bot's logs")
	testBranches := fs.String("test-branches", app.TestBranchesREST, "how test branches are built: rest (GitHub's merges API) or git (a local clone and one push)")
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	opts := sandbox.Options{Dir: *dir, Addr: *addr, FakeAddr: *fakeAddr, TestBranches: *testBranches}
	if *verbose {
		l := zerolog.New(zerolog.ConsoleWriter{Out: stderr}).With().Timestamp().Logger()
		opts.Logger = &l
	}
	env, err := sandbox.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer env.Close()
	env.Fake.SetCIHold(*ciTime > 0)

	secret, _, err := apitoken.Issue(ctx, env.App().Store(), "sandbox", nil, nil, 0, time.Now())
	if err != nil {
		return err
	}
	prs, err := seedDemo(ctx, env, secret)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, `
Merge queue sandbox is running (Ctrl-C to stop).

  dashboard      %[1]s/
  REST API       %[1]s/v1/   (header %[8]s: %[2]s)
  fake GitHub    %[3]s   (repository %[4]s/%[5]s)

Try:
  curl -s -H '%[8]s: %[2]s' %[1]s/v1/getQueue \
    -d '{"repo":{"host":"%[9]s","owner":"%[4]s","name":"%[5]s"},"targetBranch":"main"}'

Opened pull requests %[6]v; #%[7]d adds a file named FAIL, which the simulated CI fails.

`, env.URL, secret, env.Fake.URL(), demoOwner, demoRepo, prs, prs[2], api.TokenHeader, queue.DefaultHost)

	userToken := env.Fake.IssueUserToken(demoUser)
	afterDemo := func() {
		if err := printByHand(stdout, env, userToken, prs[len(prs)-1]+1); err != nil {
			fmt.Fprintf(stderr, "bot sandbox: %v\n", err)
		}
	}
	watch(ctx, env, stdout, *ciTime, prs, afterDemo)
	fmt.Fprintln(stdout, "\nstopping")
	return nil
}

// seedDemo creates the demo repository, its queue, and four PRs: #1 and #3
// by REST, #2 by a `/mq merge` comment, #4 by REST with high priority.
func seedDemo(ctx context.Context, env *sandbox.Env, token string) ([]int, error) {
	f := env.Fake
	if err := f.CreateRepo(demoOwner, demoRepo, map[string]string{"README.md": "# demo app\n", "main.go": "package main\n\nfunc main() {}\n"}); err != nil {
		return nil, err
	}
	if err := f.SetRequiredChecks(demoOwner, demoRepo, "main", []string{"ci/test"}); err != nil {
		return nil, err
	}
	if err := f.SetPermission(demoOwner, demoRepo, demoUser, "write"); err != nil {
		return nil, err
	}
	repoJSON := map[string]any{"host": queue.DefaultHost, "owner": demoOwner, "name": demoRepo}
	if err := callAPI(ctx, env.URL, token, "createQueue", map[string]any{"repo": repoJSON, "targetBranch": "main", "concurrency": 2}); err != nil {
		return nil, err
	}
	changes := []struct {
		branch, title string
		files         map[string]string
	}{
		{"docs", "Document the app", map[string]string{"docs/usage.md": "Run it.\n"}},
		{"feature", "Add a greeting", map[string]string{"greet.go": "package main\n\nconst greeting = \"hi\"\n"}},
		{"broken", "Break the build", map[string]string{"FAIL": "this change breaks CI\n"}},
		{"refactor", "Tidy main", map[string]string{"main.go": "package main\n\n// main does nothing yet.\nfunc main() {}\n"}},
	}
	var prs []int
	for _, c := range changes {
		if _, err := f.Commit(demoOwner, demoRepo, c.branch, c.files, c.title); err != nil {
			return nil, err
		}
		n, err := f.OpenPR(demoOwner, demoRepo, fakegithub.PROptions{Head: c.branch, Title: c.title, Author: demoUser})
		if err != nil {
			return nil, err
		}
		prs = append(prs, n)
	}
	submit := func(n int, priority any) error {
		return callAPI(ctx, env.URL, token, "submitPullRequest", map[string]any{"repo": repoJSON, "targetBranch": "main",
			"pr": map[string]any{"number": n}, "priority": priority})
	}
	if err := submit(prs[0], nil); err != nil {
		return nil, err
	}
	if _, err := f.Comment(demoOwner, demoRepo, prs[1], demoUser, "Ready to go.\n/mq merge"); err != nil {
		return nil, err
	}
	if err := submit(prs[2], nil); err != nil {
		return nil, err
	}
	if err := submit(prs[3], "high"); err != nil {
		return nil, err
	}
	for _, b := range handBranches { // for the by-hand part, after the demo
		if _, err := f.Commit(demoOwner, demoRepo, b.branch, b.files, b.title); err != nil {
			return nil, err
		}
	}
	return prs, nil
}

// callAPI posts one REST operation and fails on any status but 200.
func callAPI(ctx context.Context, base, token, op string, body any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/"+op, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.TokenHeader, token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %d %s", op, resp.StatusCode, bytes.TrimSpace(out))
	}
	return nil
}

// watch prints every entry state change, in the order the queue made them
// (from its event log), and paces the simulated CI until ctx ends. It
// calls afterDemo once, when every PR of demo has ended.
func watch(ctx context.Context, env *sandbox.Env, out io.Writer, ciTime time.Duration, demo []int, afterDemo func()) {
	store := env.App().Store()
	printed := map[int64]queue.Event{} // queue ID → last event printed
	titles := map[string]string{}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	lastRelease := time.Now()
	pending := map[int]bool{} // demo PRs not ended yet
	for _, n := range demo {
		pending[n] = true
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if ciTime > 0 && time.Since(lastRelease) >= ciTime {
			env.Fake.ReleaseCI()
			lastRelease = time.Now()
		}
		queues, err := store.ListQueues(ctx)
		if err != nil {
			continue
		}
		for _, q := range queues {
			since := printed[q.ID].At
			if since.IsZero() {
				since = time.Unix(0, 0) // a zero since matches nothing
			}
			events, err := store.ListEvents(ctx, q.ID, since)
			if err != nil {
				continue
			}
			for _, ev := range events {
				if ev.ID <= printed[q.ID].ID {
					continue
				}
				printed[q.ID] = ev
				if _, ok := titles[ev.EntryID]; !ok {
					if e, err := store.GetEntryByID(ctx, ev.EntryID); err == nil {
						titles[ev.EntryID] = title(e)
					}
				}
				fmt.Fprintf(out, "%s  #%d %-18s %-14s %s\n", ev.At.Local().Format("15:04:05"), ev.PRNumber,
					titles[ev.EntryID], ev.To, explain(ev.Reason, ev.Detail))
				if ev.To.Terminal() && pending[ev.PRNumber] {
					delete(pending, ev.PRNumber)
					if len(pending) == 0 {
						afterDemo()
					}
				}
			}
		}
	}
}

func title(e *queue.Entry) string {
	t := e.PR.Title
	if len(t) > 18 {
		t = t[:17] + "…"
	}
	return t
}

func explain(reason queue.Reason, detail string) string {
	if detail == "" {
		return string(reason)
	}
	return fmt.Sprintf("(%s) %s", reason, detail)
}
