package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/mergequeue/mq/queue"
)

// chartRanges are the ranges the charts page offers; each is cut in hours.
var chartRanges = []time.Duration{24 * time.Hour, 72 * time.Hour, 7 * 24 * time.Hour}

// chartRunsLimit bounds how many of a queue's latest successful runs the
// test-time chart reads.
const chartRunsLimit = 5000

// hourStats are one hour of a queue: depth sampled each minute (admitted,
// active entries), time to merge of the PRs merged in it (submitted →
// merged), test time of the runs that succeeded in it (started →
// finished), and the merges and failures decided in it. Percentiles are
// nearest-rank; zero when there was nothing to measure.
type hourStats struct {
	Start                        time.Time
	DepthP50, DepthP90, DepthMax int
	WaitP50, WaitP90             time.Duration
	TestP50, TestP90             time.Duration
	Merges, Failures             int
}

// chartData is a queue's hours over [From, To) and the same figures over
// the whole range.
type chartData struct {
	From, To time.Time
	Hours    []hourStats
	Total    hourStats
}

// percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of sorted
// values; the zero value when there are none.
func percentile[T int | time.Duration](sorted []T, p int) T {
	var zero T
	if len(sorted) == 0 {
		return zero
	}
	rank := (p*len(sorted) + 99) / 100
	return sorted[max(rank, 1)-1]
}

// computeCharts reads a queue's entries, events and runs and cuts them into
// the hours of [from, to) (to is rounded up to a whole hour).
func computeCharts(ctx context.Context, store QueueReads, q *queue.Queue, from, to time.Time) (*chartData, error) {
	from, to = from.UTC().Truncate(time.Hour), to.UTC().Add(time.Hour-1).Truncate(time.Hour)
	n := int(to.Sub(from) / time.Hour)
	d := &chartData{From: from, To: to, Hours: make([]hourStats, n)}
	for i := range d.Hours {
		d.Hours[i].Start = from.Add(time.Duration(i) * time.Hour)
	}
	hour := func(t time.Time) int {
		if t.Before(from) || !t.Before(to) {
			return -1
		}
		return int(t.Sub(from) / time.Hour)
	}
	// Every entry that may have been in the queue during the range: those
	// ended in it or after, and those still active.
	ended, err := store.ListEntries(ctx, queue.EntryQuery{QueueID: q.ID, Since: from})
	if err != nil {
		return nil, fmt.Errorf("failed to list entries for charts: %w", err)
	}
	active, err := store.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return nil, fmt.Errorf("failed to list entries for charts: %w", err)
	}
	seen := map[string]bool{}
	var spans [][2]time.Time // admitted, ended (zero = still active)
	waits := make([][]time.Duration, n)
	for _, e := range append(ended, active...) {
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		if !e.AdmittedAt.IsZero() {
			spans = append(spans, [2]time.Time{e.AdmittedAt, e.ConcludedAt})
		}
		if h := hour(e.ConcludedAt); h >= 0 && e.State == queue.StateMerged && !e.SubmittedAt.IsZero() {
			waits[h] = append(waits[h], e.ConcludedAt.Sub(e.SubmittedAt))
		}
	}
	depths := make([][]int, n)
	for i := range n {
		for m := range 60 {
			t := from.Add(time.Duration(i)*time.Hour + time.Duration(m)*time.Minute)
			depth := 0
			for _, s := range spans {
				if !s[0].After(t) && (s[1].IsZero() || s[1].After(t)) {
					depth++
				}
			}
			depths[i] = append(depths[i], depth)
		}
	}
	events, err := store.ListEvents(ctx, q.ID, from)
	if err != nil {
		return nil, fmt.Errorf("failed to list events for charts: %w", err)
	}
	for _, ev := range events {
		if h := hour(ev.At); h >= 0 {
			switch ev.To {
			case queue.StateMerged:
				d.Hours[h].Merges++
			case queue.StateFailed:
				d.Hours[h].Failures++
			}
		}
	}
	runs, err := store.RecentRuns(ctx, q.ID, chartRunsLimit)
	if err != nil {
		return nil, fmt.Errorf("failed to list runs for charts: %w", err)
	}
	tests := make([][]time.Duration, n)
	for _, r := range runs {
		if h := hour(r.FinishedAt); h >= 0 && !r.StartedAt.IsZero() && r.FinishedAt.After(r.StartedAt) {
			tests[h] = append(tests[h], r.FinishedAt.Sub(r.StartedAt))
		}
	}
	var allDepth []int
	var allWait, allTest []time.Duration
	for i := range d.Hours {
		h := &d.Hours[i]
		h.setPercentiles(depths[i], waits[i], tests[i])
		d.Total.Merges += h.Merges
		d.Total.Failures += h.Failures
		allDepth = append(allDepth, depths[i]...)
		allWait = append(allWait, waits[i]...)
		allTest = append(allTest, tests[i]...)
	}
	d.Total.Start = from
	d.Total.setPercentiles(allDepth, allWait, allTest)
	return d, nil
}

// setPercentiles sorts the depth samples, times to merge and test times
// (in place) and sets h's percentiles of them.
func (h *hourStats) setPercentiles(depths []int, waits, tests []time.Duration) {
	slices.Sort(depths)
	slices.Sort(waits)
	slices.Sort(tests)
	h.DepthP50, h.DepthP90, h.DepthMax = percentile(depths, 50), percentile(depths, 90), percentile(depths, 100)
	h.WaitP50, h.WaitP90 = percentile(waits, 50), percentile(waits, 90)
	h.TestP50, h.TestP90 = percentile(tests, 50), percentile(tests, 90)
}

type chartsView struct {
	Queue                       *queue.Queue
	Data                        *chartData
	Range                       time.Duration
	Ranges                      []time.Duration
	QueuePage                   string
	HistoryPage                 string
	ChartsPage                  string
	Depth, Wait, Test, Outcomes any // inline SVG
}

// chartsDashboard draws a queue's depth, time to merge and test time
// percentiles and its merges and failures per hour over ?range= (24h, 72h
// or 168h; default 24h), as server-rendered inline SVG with the figures
// in a table beside.
func (d *Dashboard) chartsDashboard(w http.ResponseWriter, r *http.Request) {
	q, ok := d.pageQueue(w, r, "charts")
	if !ok {
		return
	}
	span := chartRanges[0]
	if s := r.URL.Query().Get("range"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || !slices.Contains(chartRanges, d) {
			http.Error(w, fmt.Sprintf("bad range %q: one of 24h, 72h, 168h", s), http.StatusBadRequest)
			return
		}
		span = d
	}
	now := d.clock()
	data, err := computeCharts(r.Context(), d.reads, q, now.Add(-span), now)
	if err != nil {
		internalError(w, r, "charts: failed to compute", err)
		return
	}
	v := chartsView{Queue: q, Data: data, Range: span, Ranges: chartRanges,
		QueuePage: repoPagePath(q.Key.Repo), HistoryPage: queuePagePath(q, "history"), ChartsPage: queuePagePath(q, "charts")}
	v.Depth = lineChart(data.Hours, "entries", false, func(h hourStats) [2]float64 {
		return [2]float64{float64(h.DepthP50), float64(h.DepthP90)}
	})
	v.Wait = lineChart(data.Hours, "minutes", true, func(h hourStats) [2]float64 {
		return [2]float64{h.WaitP50.Minutes(), h.WaitP90.Minutes()}
	})
	v.Test = lineChart(data.Hours, "minutes", true, func(h hourStats) [2]float64 {
		return [2]float64{h.TestP50.Minutes(), h.TestP90.Minutes()}
	})
	v.Outcomes = barChart(data.Hours)
	d.render(w, r, http.StatusOK, chartsTmpl, "layout", pageData{Title: "Charts of " + q.Key.Repo.FullName(),
		Viewer: viewerFrom(r.Context()), Body: v})
}
