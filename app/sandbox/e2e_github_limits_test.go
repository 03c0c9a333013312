package sandbox

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/githubx/fakegithub"
)

// GitHub's secondary limits scaled down for the end-to-end limit tests, so
// that today's write rate hits them within seconds. GitHub documents 80
// content-generating requests per minute and 500 per hour, 900 points per
// minute, 100 concurrent requests, and usually asks for 60 s.
const (
	scaledMinute          = time.Second     // SCALE: a "minute" lasts 1 s (÷60)
	scaledHour            = 8 * time.Second // SCALE: an "hour" lasts 8 s (÷450), so it binds within the test
	scaledWritesPerMinute = 30              // the figure (GitHub: 80)
	scaledWritesPerHour   = 200             // the figure (GitHub: 500)
	scaledPointsPerMinute = 900             // GitHub's, per scaled minute
	scaledConcurrent      = 100             // GitHub's
	scaledRetryAfter      = time.Second     // SCALE: GitHub usually asks 60 s
	scaledMaxPause        = 4 * time.Second // SCALE: the doubled pauses after repeated refusals stop here (default 15 min)
	undisclosedEvery      = 60              // every 60th write refused anyway, as GitHub may "for undisclosed reasons"
	limitBurst            = 24              // PRs submitted at once, concurrency 4, no batching
)

// scaledLimits are the limits the fake GitHub enforces.
func scaledLimits() *fakegithub.SecondaryLimits {
	return &fakegithub.SecondaryLimits{Concurrent: scaledConcurrent, PointsPerMinute: scaledPointsPerMinute,
		WritesPerMinute: scaledWritesPerMinute, WritesPerHour: scaledWritesPerHour, Minute: scaledMinute, Hour: scaledHour,
		RetryAfter: scaledRetryAfter, TooManyRequestsEvery: 3, UndisclosedEvery: undisclosedEvery}
}

// sent is one request the app's GitHub client put on the wire.
type sent struct {
	start, end time.Time
	install    bool // made with an installation token (the fake limits those)
	status     int
	route      string
}

// wireLog is the app's GitHub transport, recording every request it sends
// (under the budget and the retries, so each try apart).
type wireLog struct {
	next http.RoundTripper
	mu   sync.Mutex
	all  []sent
}

func (l *wireLog) RoundTrip(req *http.Request) (*http.Response, error) {
	s := sent{start: time.Now(), install: strings.HasPrefix(req.Header.Get("Authorization"), "token "),
		route: req.Method + " " + githubx.Endpoint(req.URL.Path)}
	resp, err := l.next.RoundTrip(req)
	s.end = time.Now()
	if resp != nil {
		s.status = resp.StatusCode
	}
	l.mu.Lock()
	l.all = append(l.all, s)
	l.mu.Unlock()
	return resp, err
}

func (l *wireLog) requests() []sent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]sent(nil), l.all...)
}

// A burst of PRs through GitHub's secondary limits, scaled down so that
// today's write rate hits them (the issue measured 13.7 writes per merged
// PR): every PR merges once and in queue order, none fails or is cancelled
// because of the limits, no request is sent inside a window the fake
// announced once the app knows of it, and the PRs' check runs and test
// branches end right. The app's budget is the limits
// (github.budget set to them), so the fake never refuses for a count; it
// refuses every 60th write anyway, as GitHub may, and those refusals pause
// the installation.
func TestBurstThroughGitHubSecondaryLimits(t *testing.T) {
	t.Parallel()
	r := runBurst(t, app.GitHubBudget{ConcurrentRequests: scaledConcurrent, PointsPerMinute: scaledPointsPerMinute,
		WritesPerMinute: scaledWritesPerMinute, WritesPerHour: scaledWritesPerHour, Minute: scaledMinute, Hour: scaledHour,
		MaxPause: scaledMaxPause})
	if r.Refusals == 0 {
		t.Error("the fake refused nothing: the pauses went untested")
	}
	for _, w := range r.Windows {
		if w.Limit != "undisclosed" {
			t.Errorf("the fake refused for %s at %v: the budget let a count through", w.Limit, w.Start)
		}
	}
}

// runBurst pushes limitBurst PRs through a queue of concurrency 4 on a
// fake enforcing scaledLimits, with the app's budget b, checks the
// outcome, and returns what the limits did.
func runBurst(t *testing.T, b app.GitHubBudget) fakegithub.LimitReport {
	t.Helper()
	wire := &wireLog{next: http.DefaultTransport}
	h, logs := newLoggedHarness(t, Options{Limits: scaledLimits(), Budget: &b, GitHubOptions: []githubx.Option{githubx.WithTransport(wire)}})
	h.createQueue(4)
	var prs []int
	for i := range limitBurst {
		prs = append(prs, h.openPR(fmt.Sprintf("burst-%02d", i), map[string]string{fmt.Sprintf("burst-%02d.txt", i): "x\n"}))
	}
	initial := len(h.mainCommits())
	before := h.env.Fake.CallCounts()
	start := time.Now()
	for _, pr := range prs {
		h.submit(pr)
	}
	for _, pr := range prs {
		if got := h.waitState(pr, "merged"); got.StateReason != "merged_by_queue" {
			t.Errorf("#%d merged as %+v", pr, got)
		}
	}
	merged := time.Since(start)

	// Merged once each, in queue order, every landed tree tested.
	commits := h.mainCommits()
	if got := len(commits) - initial; got != limitBurst {
		t.Errorf("main gained %d commits for %d PRs", got, limitBurst)
	}
	last := initial - 1
	for _, pr := range prs {
		i := indexOf(commits, h.mergeCommit(pr))
		if i <= last {
			t.Errorf("#%d landed at %d on main, after %d: not in queue order", pr, i, last)
		}
		last = i
	}
	h.assertLandedTreesPassed(initial)

	// The surfaces end right: check run completed with success; a sticky
	// comment only where something waited to be explained (on a loaded
	// machine a PR may wait to be ready past the grace), and then saying
	// it merged; no test or scratch branch left but the queue's lane.
	for _, pr := range prs {
		p, err := h.env.Fake.PR(owner, repo, pr)
		if err != nil {
			t.Fatal(err)
		}
		head := p.GetHead().GetSHA()
		h.waitFor(fmt.Sprintf("#%d's surfaces to show the merge", pr), func() bool {
			runs := h.env.Fake.CheckRunsNamed(owner, repo, head, "Merge Queue (main)")
			sticky := h.env.Fake.CommentsContaining(owner, repo, pr, "merge-queue-status")
			return len(runs) == 1 && runs[0].GetStatus() == "completed" && runs[0].GetConclusion() == "success" &&
				(len(sticky) == 0 || len(sticky) == 1 && strings.Contains(sticky[0].GetBody(), "Merged"))
		}, func() string {
			return fmt.Sprintf("check runs %v, comments %d; the app's log of #%d:\n%s", h.env.Fake.CheckRunsNamed(owner, repo, head, "Merge Queue (main)"),
				len(h.env.Fake.CommentsContaining(owner, repo, pr, "merge-queue-status")), pr, logsOf(logs, pr))
		})
	}
	left := func() []string {
		var out []string
		for _, b := range h.env.Fake.BranchesWithPrefix(owner, repo, "mq-") {
			if !strings.HasPrefix(b, "mq-temp/lane-") {
				out = append(out, b)
			}
		}
		return out
	}
	h.waitFor("no test branch left", func() bool { return len(left()) == 0 }, func() string { return fmt.Sprint(left()) })
	settled := time.Since(start)

	report := h.env.Fake.LimitReport(h.env.Fake.InstallationID())
	wantNothingInsideWindows(t, report, wire.requests())
	// The app's metrics count the refusals it was answered, and its waits.
	fams := h.processMetrics()
	if got := sumOf(fams["mq_github_rate_limit_refusals_total"]); got != float64(report.Refusals) {
		t.Errorf("mq_github_rate_limit_refusals_total = %v, the fake refused %d", got, report.Refusals)
	}
	if sumOf(fams["mq_github_budget_waits_total"]) == 0 {
		t.Error("mq_github_budget_waits_total counts no wait")
	}

	// The figures for the record.
	before2, surfaces2 := writesBeforeSecondMerge(wire.requests())
	after := h.env.Fake.CallCounts()
	writes, calls := 0, 0
	var byRoute []string
	for k, v := range after {
		d := v - before[k]
		if d == 0 || strings.HasPrefix(k, "POST /app/") || strings.HasSuffix(k, "/installation") {
			continue
		}
		calls += d
		if !strings.HasPrefix(k, "GET ") {
			writes += d
			byRoute = append(byRoute, fmt.Sprintf("%4d %s", d, k))
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(byRoute)))
	t.Logf("%d PRs merged in %v, surfaces settled in %v; %d calls, %d writes sent (%.1f per merged PR, refusals included), "+
		"%d accepted; %d refusals, %d windows, %d requests arrived inside one (in flight when it opened); "+
		"%d writes before the second merge, %d of them to surfaces\nwrites by route:\n%s",
		limitBurst, merged.Round(time.Millisecond), settled.Round(time.Millisecond), calls, writes, float64(writes)/limitBurst,
		report.AcceptedWrites, report.Refusals, len(report.Windows), len(report.Inside), before2, surfaces2, strings.Join(byRoute, "\n"))
	return report
}

// wantNothingInsideWindows checks that the app sent no request inside a
// window the fake announced once it knew of it: from the first refusal it
// received during the window to the window's end, nothing was sent. (A
// request already on its way when GitHub opened a window cannot be
// recalled; the fake refuses it, and its refusal is one more the app
// honours.)
func wantNothingInsideWindows(t *testing.T, r fakegithub.LimitReport, wire []sent) {
	t.Helper()
	for _, w := range r.Windows {
		var learnt time.Time
		for _, s := range wire {
			refused := s.status == http.StatusForbidden || s.status == http.StatusTooManyRequests
			if s.install && refused && !s.end.Before(w.Start) && s.end.Before(w.End) && (learnt.IsZero() || s.end.Before(learnt)) {
				learnt = s.end
			}
		}
		if learnt.IsZero() {
			continue // the app learnt of it only once it was over
		}
		for _, s := range wire {
			if s.install && !s.start.Before(learnt) && s.start.Before(w.End) {
				t.Errorf("%s sent %v into a %v window (%s), %v after the app learnt of it", s.route, s.start.Sub(w.Start),
					w.End.Sub(w.Start), w.Limit, s.start.Sub(learnt))
			}
		}
	}
}

// processMetrics scrapes the app's /metrics.
func (h *harness) processMetrics() map[string]*dto.MetricFamily {
	h.t.Helper()
	resp, err := testHTTP.Get(h.env.URL + "/metrics")
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		h.t.Fatalf("metrics do not parse: %v", err)
	}
	return fams
}

// sumOf adds a counter family's series up (0 when absent).
func sumOf(f *dto.MetricFamily) float64 {
	total := 0.0
	for _, m := range f.GetMetric() {
		total += m.GetCounter().GetValue()
	}
	return total
}

// writesBeforeSecondMerge counts the writes the app sent before the second
// merge, and those of them to PR surfaces (comments and check runs).
func writesBeforeSecondMerge(wire []sent) (writes, surfaces int) {
	sort.Slice(wire, func(i, j int) bool { return wire[i].start.Before(wire[j].start) })
	merges := 0
	for _, s := range wire {
		if !s.install || strings.HasPrefix(s.route, "GET ") {
			continue
		}
		if strings.HasSuffix(s.route, "/merge") && s.status == http.StatusOK {
			if merges++; merges == 2 {
				return writes, surfaces
			}
		}
		writes++
		if strings.Contains(s.route, "/comments") || strings.Contains(s.route, "/check-runs") {
			surfaces++
		}
	}
	return writes, surfaces
}

// logsOf is the app's log lines about PR pr, and those that name no PR
// but a warning or an error, the last 60.
func logsOf(logs *logBuffer, pr int) string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if strings.Contains(line, fmt.Sprintf(`"pr":%d,`, pr)) || strings.Contains(line, `"level":"warn"`) || strings.Contains(line, `"level":"error"`) {
			out = append(out, line)
		}
	}
	if len(out) > 60 {
		out = out[len(out)-60:]
	}
	return strings.Join(out, "\n")
}
