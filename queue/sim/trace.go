package sim

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
)

// prNumbers matches a PR number or a list of them in a detail, so that
// details group by kind.
var prNumbers = regexp.MustCompile(`#[0-9]+(?:, #[0-9]+)*`)

// TraceBucketWidth is the width of a Trace's time buckets.
const TraceBucketWidth = 15 * time.Minute

// Trace is what our engine did during one run (RunOptions.Trace), read from
// the store's event log when the run ended: the evidence behind
// docs/performance.md's monorepo finding (issue #20).
type Trace struct {
	// Restarts counts the entries sent back to pending to test again, by
	// reason and the head of its detail (up to the first ";", PR numbers
	// as #N).
	Restarts map[string]int
	// All lists the PRs impacting every target (Workload.AllShare), in
	// arrival order.
	All []TracedPR
	// Buckets are per TraceBucketWidth from the first arrival.
	Buckets []TraceBucket
	// Waiting counts the entries still active at the end by state and the
	// head of their detail (70 characters, PR numbers as #N).
	Waiting map[string]int
	// Phases is where the time of merged PRs and culprits went.
	Phases TracePhases
}

// TracedPR is the life of one PR in the queue: End is zero while it was
// still in the queue; Runs counts the times it started testing.
type TracedPR struct {
	Number        int
	Bad           bool
	Arrival, End  time.Duration
	Runs, Restart int
}

// TraceBucket counts what happened in one bucket: Depth is the number of
// PRs in the queue at its start.
type TraceBucket struct {
	At                              time.Duration
	Depth, Starts, Restarts, Merged int
}

// trace reads the run's trace from the store.
func (r *oursRun) trace() (*Trace, error) {
	evs, err := r.store.ListEvents(r.ctx, r.q.ID, Epoch)
	if err != nil {
		return nil, fmt.Errorf("failed to read the event log: %w", err)
	}
	t := &Trace{Restarts: map[string]int{}, Waiting: map[string]int{}, Phases: tracePhases(evs)}
	type life struct {
		arrival, end   time.Duration
		runs, restarts int
	}
	lives := map[int]*life{}
	bucket := func(at time.Duration) *TraceBucket {
		k := int(at / TraceBucketWidth)
		for len(t.Buckets) <= k {
			t.Buckets = append(t.Buckets, TraceBucket{At: time.Duration(len(t.Buckets)) * TraceBucketWidth})
		}
		return &t.Buckets[k]
	}
	for _, e := range evs {
		at := e.At.Sub(Epoch)
		l := lives[e.PRNumber]
		if l == nil {
			l = &life{arrival: at}
			lives[e.PRNumber] = l
		}
		b := bucket(at)
		switch {
		case e.To == queue.StateTesting:
			l.runs++
			b.Starts++
		case e.To == queue.StatePending && strings.HasPrefix(string(e.Reason), "restarted_"):
			l.restarts++
			b.Restarts++
			t.Restarts[string(e.Reason)+": "+prNumbers.ReplaceAllString(strings.SplitN(e.Detail, ";", 2)[0], "#N")]++
		case e.To == queue.StateMerged:
			b.Merged++
		}
		if e.To.Terminal() {
			l.end = at
		}
	}
	for i := range t.Buckets {
		b := &t.Buckets[i]
		for _, l := range lives {
			if l.arrival <= b.At && (l.end == 0 || l.end > b.At) {
				b.Depth++
			}
		}
	}
	for i, pr := range r.prs[:r.arrived] {
		if !pr.All {
			continue
		}
		n := r.number[i]
		tp := TracedPR{Number: n, Bad: pr.Bad, Arrival: pr.Arrival}
		if l := lives[n]; l != nil {
			tp.End, tp.Runs, tp.Restart = l.end, l.runs, l.restarts
		}
		t.All = append(t.All, tp)
	}
	active, err := r.store.ListActiveEntries(r.ctx, r.q.ID)
	if err != nil {
		return nil, fmt.Errorf("failed to list the active entries: %w", err)
	}
	for _, e := range active {
		d := prNumbers.ReplaceAllString(e.StateReasonDetail, "#N")
		if len(d) > 70 {
			d = d[:70]
		}
		t.Waiting[string(e.State)+": "+d]++
	}
	return t, nil
}

// Text prints the trace for a reader.
func (t *Trace) Text() string {
	var b strings.Builder
	b.WriteString("restarts by reason:\n")
	for _, k := range sortedByCount(t.Restarts) {
		fmt.Fprintf(&b, "  %6d %s\n", t.Restarts[k], k)
	}
	for _, p := range t.All {
		end := "still queued"
		if p.End > 0 {
			end = fmt.Sprintf("ended at %.0f min", p.End.Minutes())
		}
		fmt.Fprintf(&b, "ALL PR #%d (broken %v): arrived at %.0f min, %s, %d runs, %d restarts\n", p.Number, p.Bad, p.Arrival.Minutes(), end, p.Runs, p.Restart)
	}
	b.WriteString(t.Phases.Text())
	b.WriteString("minute | PRs queued | runs started | restarts | merged\n")
	for _, x := range t.Buckets {
		fmt.Fprintf(&b, "%6.0f | %10d | %12d | %8d | %6d\n", x.At.Minutes(), x.Depth, x.Starts, x.Restarts, x.Merged)
	}
	if len(t.Waiting) > 0 {
		b.WriteString("active at the end:\n")
		for _, k := range sortedByCount(t.Waiting) {
			fmt.Fprintf(&b, "  %6d %s\n", t.Waiting[k], k)
		}
	}
	return b.String()
}

// sortedByCount returns m's keys, largest count first, then by key.
func sortedByCount(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	return keys
}
