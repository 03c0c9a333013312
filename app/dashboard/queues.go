package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// repoView is one repository and its queues.
type repoView struct {
	Repo   queue.Repo
	Page   string // the repository's dashboard page
	URL    string // on GitHub
	Queues []*queueView
}

// queueView is one queue as the dashboard shows it: its open test runs in
// queue order (the chain of units), its active entries and its latest
// decisions.
type queueView struct {
	Queue       *queue.Queue
	BranchURL   string
	HistoryPage string
	ChartsPage  string
	// Stall says why the queue is stalled ("" when it is not).
	Stall string
	// AutoTune is autoTune's configured and effective values (nil: off).
	AutoTune *autoTuneView
	// Flaky are the required checks' failures of the last week.
	Flaky   []FlakyCheck
	Units   []unitView
	Entries []entryView
	// Events are the latest state changes, newest first.
	Events []eventView
}

// unitView is one open test run: a single PR or a batch.
type unitView struct {
	Run       *queue.TestRun
	Batch     bool
	Members   []prLink
	Ahead     []prLink // active entries whose changes the run's base includes
	BranchURL string
	CommitURL string
	TestPR    int
	TestPRURL string
	Checks    []checkView
	Since     time.Time
	EndsAt    time.Time
	// TimesOutAt is when the run times out (zero: no timeout).
	TimesOutAt time.Time
}

// prLink is a PR on GitHub and on the dashboard.
type prLink struct {
	Number int
	Title  string
	URL    string
	Page   string
}

// checkView is one required check of a run: its state on the run's commit
// (pending until reported) and its details URL.
type checkView struct {
	Name  string
	State queue.CheckState
	URL   string
}

// entryView is an active entry with where it stands (1-based position,
// expected merge), its links, and the 1-based index of its unit in the
// chain (0 when not testing).
type entryView struct {
	E         *queue.Entry
	Est       Estimate
	Waiting   string // what it waits for now ("" when unknown)
	Page      string
	URL       string
	AuthorURL string
	Unit      int
}

type eventView struct {
	queue.Event
	Page string
}

// dashboardEvents is how many recent state changes a queue shows.
const dashboardEvents = 30

// visibleQueues returns the queues the viewer may read, of repo only when
// repo is set, grouped by repository in queue-ID order.
func (d *Dashboard) visibleQueues(ctx context.Context, v viewer, repo *queue.Repo) ([]repoView, error) {
	queues, err := d.reads.ListQueues(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list queues: %w", err)
	}
	var out []repoView
	index := map[queue.Repo]int{}
	for _, q := range queues {
		r := q.Key.Repo
		if !v.Allows(r) || repo != nil && r.Fold() != repo.Fold() {
			continue
		}
		qv, err := d.queueView(ctx, q)
		if err != nil {
			return nil, err
		}
		i, ok := index[r.Fold()]
		if !ok {
			i = len(out)
			index[r.Fold()] = i
			out = append(out, repoView{Repo: r, Page: repoPagePath(r), URL: d.links(r).repo(r)})
		}
		out[i].Queues = append(out[i].Queues, qv)
	}
	return out, nil
}

func repoPagePath(r queue.Repo) string { return "/repos/" + r.Owner + "/" + r.Name }

func queuePagePath(q *queue.Queue, page string) string {
	return repoPagePath(q.Key.Repo) + "/" + page + "?branch=" + url.QueryEscape(q.Key.Branch)
}

// queueView reads one queue: active entries in queue order (admitted ones,
// then those not ready yet), open runs in the order of their first entry,
// with their members, required checks and test PR, and the decisions of the
// last day.
func (d *Dashboard) queueView(ctx context.Context, q *queue.Queue) (*queueView, error) {
	repo, gh, now := q.Key.Repo, d.links(q.Key.Repo), d.clock()
	qv := &queueView{Queue: q, BranchURL: gh.tree(repo, q.Key.Branch),
		HistoryPage: queuePagePath(q, "history"), ChartsPage: queuePagePath(q, "charts")}
	entries, err := d.reads.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return nil, fmt.Errorf("failed to list entries of %s: %w", q.Key, err)
	}
	ests, err := d.reads.Estimates(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("failed to estimate %s: %w", q.Key, err)
	}
	switch stall, err := d.reads.Stalled(ctx, q); {
	case err != nil:
		return nil, fmt.Errorf("failed to tell whether %s is stalled: %w", q.Key, err)
	case stall != nil:
		qv.Stall = stall.Detail
	}
	if qv.AutoTune, err = d.autoTuneOf(ctx, q); err != nil {
		return nil, err
	}
	waits, err := d.reads.Waiting(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("failed to tell what the entries of %s wait for: %w", q.Key, err)
	}
	if qv.Flaky, err = d.reads.FlakyChecks(ctx, q); err != nil {
		return nil, fmt.Errorf("failed to measure the flaky checks of %s: %w", q.Key, err)
	}
	ordered := inQueueOrder(entries, ests)
	byID := map[string]*queue.Entry{}
	rank := map[string]int{}
	for i, e := range ordered {
		byID[e.ID], rank[e.ID] = e, i
	}
	runs, err := d.reads.ListOpenRuns(ctx, q.ID)
	if err != nil {
		return nil, fmt.Errorf("failed to list runs of %s: %w", q.Key, err)
	}
	runs = slices.DeleteFunc(runs, func(r *queue.TestRun) bool {
		return len(r.EntryIDs) == 0 || byID[r.EntryIDs[0]] == nil
	})
	sort.SliceStable(runs, func(i, j int) bool { return rank[runs[i].EntryIDs[0]] < rank[runs[j].EntryIDs[0]] })
	unitOf := map[string]int{}
	for _, run := range runs {
		u, err := d.unitView(ctx, q, run, byID, ests)
		if err != nil {
			return nil, err
		}
		qv.Units = append(qv.Units, u)
		for _, id := range run.EntryIDs {
			if byID[id] != nil && byID[id].RunID == run.ID {
				unitOf[id] = len(qv.Units)
			}
		}
	}
	for _, e := range ordered {
		ev := entryView{E: e, Est: ests[e.ID], Page: readside.PRPagePath(repo, e.PRNumber),
			URL: gh.pull(repo, e.PRNumber), Unit: unitOf[e.ID]}
		ev.AuthorURL = gh.user(e.PR.Author)
		if w := waits[e.ID]; w != nil {
			ev.Waiting = w.Detail
		}
		qv.Entries = append(qv.Entries, ev)
	}
	events, err := d.reads.ListEvents(ctx, q.ID, now.Add(-24*time.Hour))
	if err != nil {
		return nil, fmt.Errorf("failed to list events of %s: %w", q.Key, err)
	}
	events = events[max(len(events)-dashboardEvents, 0):]
	slices.Reverse(events)
	for _, ev := range events {
		qv.Events = append(qv.Events, eventView{Event: ev, Page: readside.PRPagePath(repo, ev.PRNumber)})
	}
	return qv, nil
}

// inQueueOrder is entries as the queue orders them: those with a position
// (the admitted ones, as the queue's estimates place them), then the others
// (not admitted yet) in the order given.
func inQueueOrder(entries []*queue.Entry, ests map[string]Estimate) []*queue.Entry {
	var placed, others []*queue.Entry
	for _, e := range entries {
		if ests[e.ID].Position > 0 {
			placed = append(placed, e)
		} else {
			others = append(others, e)
		}
	}
	sort.SliceStable(placed, func(i, j int) bool { return ests[placed[i].ID].Position < ests[placed[j].ID].Position })
	return append(placed, others...)
}

// unitView describes one open run.
func (d *Dashboard) unitView(ctx context.Context, q *queue.Queue, run *queue.TestRun, byID map[string]*queue.Entry,
	ests map[string]Estimate) (unitView, error) {
	repo, gh := q.Key.Repo, d.links(q.Key.Repo)
	u := unitView{Run: run, Batch: len(run.EntryIDs) > 1, Since: run.CreatedAt}
	if !run.StartedAt.IsZero() {
		u.Since = run.StartedAt
	}
	for i, n := range run.PRNumbers {
		m := prLink{Number: n, URL: gh.pull(repo, n), Page: readside.PRPagePath(repo, n)}
		if i < len(run.EntryIDs) {
			if e := byID[run.EntryIDs[i]]; e != nil {
				m.Title = e.PR.Title
				if est := ests[e.ID]; est.RunEndsAt.After(u.EndsAt) {
					u.EndsAt = est.RunEndsAt
				}
				if est := ests[e.ID]; !est.TimesOutAt.IsZero() {
					u.TimesOutAt = est.TimesOutAt
				}
			}
		}
		if m.Title == "" {
			m.Title = fmt.Sprintf("PR #%d", n)
		}
		u.Members = append(u.Members, m)
	}
	for _, id := range run.Ahead {
		if e := byID[id]; e != nil {
			u.Ahead = append(u.Ahead, prLink{Number: e.PRNumber, Title: e.PR.Title,
				URL: gh.pull(repo, e.PRNumber), Page: readside.PRPagePath(repo, e.PRNumber)})
		}
	}
	if run.Branch != "" {
		u.BranchURL = gh.tree(repo, run.Branch)
	}
	if run.SHA != "" {
		u.CommitURL = gh.commit(repo, run.SHA)
	}
	switch rs, err := d.reads.GetRunSurface(ctx, run.ID); {
	case err == nil && rs.PRNumber > 0:
		u.TestPR, u.TestPRURL = rs.PRNumber, gh.pull(repo, rs.PRNumber)
	case err != nil && !errors.Is(err, queue.ErrNotFound):
		return u, fmt.Errorf("failed to load the test PR of run %s: %w", run.ID, err)
	}
	var recorded []queue.CheckResult
	if run.SHA != "" {
		var err error
		if recorded, err = d.reads.ListChecks(ctx, repo, run.SHA); err != nil {
			return u, fmt.Errorf("failed to list checks of run %s: %w", run.ID, err)
		}
		recorded = queue.ChecksOfAttempt(run, recorded) // a check re-run in place is pending again
	}
	for _, name := range run.RequiredChecks {
		c := checkView{Name: name, State: queue.CheckPending}
		for _, r := range recorded {
			if r.Name == name && (c.URL == "" || r.State != queue.CheckPending) {
				c.State, c.URL = r.State, r.URL
			}
		}
		u.Checks = append(u.Checks, c)
	}
	return u, nil
}
