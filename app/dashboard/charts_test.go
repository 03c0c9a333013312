package dashboard

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// seedChartQueue stores two hours of a queue from dashT0: A (submitted
// 10 min before, admitted at 0, merged at 30 min), B (admitted and
// submitted at 10 min, merged at 70 min), C (admitted at 0, still active),
// a failure decided at 75 min, and successful runs of 20, 25 and 30 min
// ending at 25, 65 and 92 min.
func seedChartQueue(t *testing.T, d *dashEnv) *queue.Queue {
	ctx := context.Background()
	q := d.queue("acme", "widgets", "main")
	m := func(n int) time.Time { return dashT0.Add(time.Duration(n) * time.Minute) }
	for _, e := range []*queue.Entry{
		{ID: "a", PRNumber: 1, State: queue.StateMerged, SubmittedAt: m(-10), AdmittedAt: m(0), ConcludedAt: m(30)},
		{ID: "b", PRNumber: 2, State: queue.StateMerged, SubmittedAt: m(10), AdmittedAt: m(10), ConcludedAt: m(70)},
		{ID: "c", PRNumber: 3, State: queue.StatePending, SubmittedAt: m(-5), AdmittedAt: m(0)},
	} {
		e.QueueID = q.ID
		d.must(d.store.SaveEntry(ctx, e))
	}
	for _, ev := range []queue.Event{
		{EntryID: "a", PRNumber: 1, At: m(30), From: queue.StateTestsPassed, To: queue.StateMerged},
		{EntryID: "b", PRNumber: 2, At: m(70), From: queue.StateTestsPassed, To: queue.StateMerged},
		{EntryID: "d", PRNumber: 4, At: m(75), From: queue.StateTesting, To: queue.StateFailed},
		{EntryID: "e", PRNumber: 5, At: m(-25 * 60), From: queue.StateTesting, To: queue.StateFailed}, // before either range
	} {
		ev.QueueID = q.ID
		d.must(d.store.AddEvent(ctx, &ev))
	}
	for i, r := range [][2]int{{5, 25}, {40, 65}, {62, 92}} {
		d.must(d.store.SaveRun(ctx, &queue.TestRun{ID: string(rune('x' + i)), QueueID: q.ID, EntryIDs: []string{"a"},
			PRNumbers: []int{1}, Status: queue.RunSucceeded, CreatedAt: m(r[0]), StartedAt: m(r[0]), FinishedAt: m(r[1]), Closed: true}))
	}
	return q
}

// The hourly figures are computed from the stored entries, events and
// runs: depth sampled each minute, time to merge, test time, merges and
// failures, each in the hour it happened.
func TestComputeChartsNumbers(t *testing.T) {
	d := newDashEnv(t, AccessPublic)
	q := seedChartQueue(t, d)
	got, err := computeCharts(context.Background(), d.dash.reads, q, dashT0, dashT0.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Hours) != 2 {
		t.Fatalf("%d hours", len(got.Hours))
	}
	want := []hourStats{
		// Depth: 2 for 10 min, 3 for 20, 2 for 30.
		{Start: dashT0, DepthP50: 2, DepthP90: 3, DepthMax: 3, WaitP50: 40 * time.Minute, WaitP90: 40 * time.Minute,
			TestP50: 20 * time.Minute, TestP90: 20 * time.Minute, Merges: 1},
		// Depth: 2 for 10 min, then 1.
		{Start: dashT0.Add(time.Hour), DepthP50: 1, DepthP90: 2, DepthMax: 2, WaitP50: 60 * time.Minute, WaitP90: 60 * time.Minute,
			TestP50: 25 * time.Minute, TestP90: 30 * time.Minute, Merges: 1, Failures: 1},
	}
	for i := range want {
		if got.Hours[i] != want[i] {
			t.Errorf("hour %d:\n got %+v\nwant %+v", i, got.Hours[i], want[i])
		}
	}
	total := hourStats{Start: dashT0, DepthP50: 2, DepthP90: 3, DepthMax: 3, WaitP50: 40 * time.Minute, WaitP90: 60 * time.Minute,
		TestP50: 25 * time.Minute, TestP90: 30 * time.Minute, Merges: 2, Failures: 1}
	if got.Total != total {
		t.Errorf("total:\n got %+v\nwant %+v", got.Total, total)
	}
}

func TestPercentileNearestRank(t *testing.T) {
	v := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for p, want := range map[int]int{50: 5, 90: 9, 91: 10, 100: 10, 1: 1} {
		if got := percentile(v, p); got != want {
			t.Errorf("p%d = %d, want %d", p, got, want)
		}
	}
	if percentile([]int(nil), 50) != 0 {
		t.Error("percentile of nothing is not 0")
	}
}

// The charts page shows the same figures over the chosen range, with one
// SVG per chart and an hover title per hour; a bad range is refused.
func TestDashboardChartsPage(t *testing.T) {
	d := newDashEnv(t, AccessPublic)
	seedChartQueue(t, d)
	d.now = dashT0.Add(2 * time.Hour)
	page := d.page("/repos/acme/widgets/charts?branch=main&range=24h0m0s")
	wantIn(t, page, `<span id="merges">2</span> merged, <span id="failures">1</span> failed`,
		`<td id="wait-p50">40m</td>`, `<td id="wait-p90">1h00m</td>`, `<td id="test-p90">30m</td>`, `<td id="depth-max">3</td>`,
		"<title>2026-03-10 13:00: 1 merged, 1 failed</title>", "<title>2026-03-10 12:00: p50 2, p90 3 entries</title>",
		"<b>last 24 hours</b>", "last 7 days</a>")
	if n := strings.Count(page, `<svg class="chart"`); n != 4 {
		t.Errorf("%d charts, want 4", n)
	}
	if rec := d.do("GET", "/repos/acme/widgets/charts?branch=main&range=5m", nil); rec.Code != http.StatusBadRequest {
		t.Errorf("bad range: %d", rec.Code)
	}
}

// An hour with nothing measured breaks a time line instead of dropping it
// to zero; depth, always measured, is drawn through zero.
func TestLineChartGaps(t *testing.T) {
	var hours []hourStats
	for _, m := range []int{0, 5, 0, 7, 8} {
		hours = append(hours, hourStats{Start: dashT0, WaitP50: time.Duration(m) * time.Minute, WaitP90: time.Duration(m) * time.Minute})
	}
	wait := func(h hourStats) [2]float64 { return [2]float64{h.WaitP50.Minutes(), h.WaitP90.Minutes()} }
	gapped := string(lineChart(hours, "minutes", true, wait))
	if strings.Count(gapped, "<circle") != 2 || strings.Count(gapped, "<polyline") != 2 {
		t.Errorf("gapped chart: want a dot and a line per series:\n%s", gapped)
	}
	through := string(lineChart(hours, "entries", false, wait))
	if strings.Count(through, "<circle") != 0 || strings.Count(through, "<polyline") != 2 {
		t.Errorf("depth chart: want one line per series:\n%s", through)
	}
}
