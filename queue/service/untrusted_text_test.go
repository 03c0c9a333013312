package service_test

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/service"
	"github.com/mergequeue/mq/queue/sim"
)

// textWorld is the simulated GitHub of package sim, keeping what the bot
// writes (comment bodies, check runs, test PRs) and reporting every check
// with the URL CI chose.
type textWorld struct {
	*sim.World
	ciURL string

	mu       sync.Mutex
	nextID   int64
	comments map[int64]string
	checks   map[int64]queue.CheckRun
	pulls    map[int]string // test PR number → body
}

func (w *textWorld) UpsertComment(_ context.Context, _ queue.Repo, _ int, id int64, body string) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if id == 0 {
		w.nextID++
		id = w.nextID
	}
	w.comments[id] = body
	return id, nil
}

func (w *textWorld) UpsertCheckRun(_ context.Context, _ queue.Repo, id int64, run queue.CheckRun) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if id == 0 {
		w.nextID++
		id = w.nextID
	}
	w.checks[id] = run
	return id, nil
}

func (w *textWorld) Checks(ctx context.Context, repo queue.Repo, sha string) ([]queue.CheckResult, error) {
	got, err := w.World.Checks(ctx, repo, sha)
	for i := range got {
		got[i].URL = w.ciURL
	}
	return got, err
}

func (w *textWorld) OpenDraftPR(_ context.Context, _ queue.Repo, _, _, _, body string) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.nextID++
	w.pulls[int(w.nextID)] = body
	return int(w.nextID), nil
}

func (w *textWorld) EditPR(_ context.Context, _ queue.Repo, n int, _, body string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pulls[n] = body
	return nil
}

func (w *textWorld) ClosePR(context.Context, queue.Repo, int) error                { return nil }
func (w *textWorld) FindPRByHead(context.Context, queue.Repo, string) (int, error) { return 0, nil }

// surfaces lists everything written, by surface.
func (w *textWorld) surfaces() map[string][]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string][]string{}
	for _, c := range w.comments {
		out["comment"] = append(out["comment"], c)
	}
	for _, c := range w.checks {
		out["check run summary"] = append(out["check run summary"], c.Summary)
	}
	for _, b := range w.pulls {
		out["test PR body"] = append(out["test PR body"], b)
	}
	return out
}

// Untrusted text a fork PR's author controls: the PR title, and the URL
// and check name its CI reports.
const (
	evilTitle = "fix @org/team [click](http://evil) ![x](http://evil/x.png) <!channel> <img src=x> #1"
	evilCheck = "ci @org/team"
)

var evilURLs = []string{"javascript:alert(1)", "<!channel>", "](http://evil)", "![x](http://evil/x.png)"}

// markdownInert lists what must never appear raw in markdown the bot
// writes from the untrusted text above: a mention of the team (a mention
// is '@' then a letter or digit), its links and image, an HTML tag or
// special Slack command, a javascript: link, its #-reference.
var markdownInert = []*regexp.Regexp{
	regexp.MustCompile(`@org`),
	regexp.MustCompile(`\]\(http://evil`),
	regexp.MustCompile(`\[click\]`),
	regexp.MustCompile(`!\[x\]`),
	regexp.MustCompile(`<!channel>`),
	regexp.MustCompile(`(^|[^\\])<img`),
	regexp.MustCompile(`(?i)\(javascript:`),
	regexp.MustCompile(`(^|[^\\])<javascript:`),
	regexp.MustCompile(`x\\?> #1`),
}

func assertMarkdownInert(t *testing.T, surface, text string) {
	t.Helper()
	for _, re := range markdownInert {
		if loc := re.FindStringIndex(text); loc != nil {
			t.Errorf("%s holds %q raw (at %d):\n%s", surface, text[loc[0]:loc[1]], loc[0], text)
		}
	}
}

// Untrusted text reaches every markdown surface the reconciler writes
// inert: the sticky comment, the failure comment, the check run and the
// test PR's body show a hostile PR title, check name and CI URL as text,
// never as a mention, link, image or HTML.
func TestUntrustedTextIsInertOnEverySurface(t *testing.T) {
	for _, ciURL := range evilURLs {
		t.Run(ciURL, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
			clock := func() time.Time { return now }
			world := &textWorld{World: sim.NewWorld(sim.WorldConfig{Now: clock, Checks: []string{evilCheck}}), ciURL: ciURL,
				comments: map[int64]string{}, checks: map[int64]queue.CheckRun{}, pulls: map[int]string{}}
			store := memstore.New()
			ids := 0
			svc := service.NewService(store, world, service.Options{Now: clock, ReconcileEvery: time.Minute,
				PublicURL: "https://mq.example", WebURL: "https://github.example",
				NewID: func() string { ids++; return fmt.Sprintf("id-%d", ids) }})
			s := queue.DefaultSettings()
			s.CreatePrsForTestingBranches = true
			cfg := world.Config()
			q, err := svc.CreateQueue(ctx, queue.QueueKey{Repo: cfg.Repo, Branch: cfg.Branch}, s)
			if err != nil {
				t.Fatal(err)
			}
			n := world.OpenPR(sim.PRSpec{Title: evilTitle, Bad: true})
			if _, err := svc.Submit(ctx, queue.SubmitRequest{Key: q.Key, PRNumber: n, Submitter: "org/team", Source: "api"}); err != nil {
				t.Fatal(err)
			}
			pass := func() {
				t.Helper()
				if _, err := svc.Sync(ctx, q.ID); err != nil {
					t.Fatalf("Sync: %v", err)
				}
				if _, err := svc.Reconciler().Pass(ctx); err != nil {
					t.Fatalf("Pass: %v", err)
				}
			}
			pass()
			pass() // the run starts; its test PR opens
			jobs := world.PendingCI()
			if len(jobs) != 1 {
				t.Fatalf("pending CI %v, want the one run", jobs)
			}
			for _, c := range world.ReportCI(jobs[0].SHA, false) {
				c.URL = ciURL
				if err := svc.OnCheck(ctx, q.Key.Repo, c); err != nil {
					t.Fatal(err)
				}
			}
			now = now.Add(time.Minute)
			pass()
			pass()
			if e, err := store.GetEntry(ctx, q.ID, n); err != nil || e.State != queue.StateFailed {
				t.Fatalf("entry %+v, %v; want it failed", e, err)
			}
			got := world.surfaces()
			for _, s := range []string{"comment", "check run summary", "test PR body"} {
				if len(got[s]) == 0 {
					t.Errorf("nothing written on the %s", s)
				}
			}
			// A PR that fails without a failure pending first gets the
			// failure comment (no sticky comment: nothing waited to be
			// explained); the sticky comment's text is escaped the same
			// way (TestSurfaceTextsEscapeUntrustedText).
			if len(got["comment"]) < 1 {
				t.Errorf("comments %q, want the failure comment", got["comment"])
			}
			for surface, texts := range got {
				for _, text := range texts {
					assertMarkdownInert(t, surface, text)
				}
			}
		})
	}
}
