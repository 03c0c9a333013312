package sim

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/mergequeue/mq/queue/autotune"
)

// Outcome is how a PR's stay in the queue ended.
type Outcome uint8

const (
	// Open means still in the queue when the simulation stopped.
	Open Outcome = iota
	Merged
	Rejected
)

// Record is what happened to one PR.
type Record struct {
	Arrival time.Duration
	End     time.Duration // when merged or rejected; 0 while Open
	Outcome Outcome
	Bad     bool
}

// Recorder collects per-PR outcomes and CI usage during one simulation.
type Recorder struct {
	Records []Record
	// Runs is the number of CI runs started; CITime the CI time they
	// consumed (a cancelled run counts until it was cancelled).
	Runs   int
	CITime time.Duration
	// Rounds counts synchronous speculation rounds (validation mode only).
	Rounds int
	// Resubmitted counts the false rejections that were followed by a
	// resubmission (RunOptions.Resubmit): the PR's record stays open, so
	// Summarize adds them to Result.FalseRejections.
	Resubmitted int
	open        int
}

// NewRecorder prepares records for prs.
func NewRecorder(prs []PR) *Recorder {
	r := &Recorder{Records: make([]Record, len(prs)), open: len(prs)}
	for i, p := range prs {
		r.Records[i] = Record{Arrival: p.Arrival, Bad: p.Bad}
	}
	return r
}

// Conclude records that PR i ended with o at time at; later calls for the
// same PR are ignored (the first conclusion wins).
func (r *Recorder) Conclude(i int, o Outcome, at time.Duration) {
	if r.Records[i].Outcome != Open {
		return
	}
	r.Records[i].Outcome, r.Records[i].End = o, at
	r.open--
}

// OpenCount is the number of PRs not concluded yet.
func (r *Recorder) OpenCount() int { return r.open }

// Quantile is a latency percentile. AtLeast marks a lower bound: the
// percentile fell on a PR still open when the simulation stopped.
type Quantile struct {
	D       time.Duration
	AtLeast bool
}

// Minutes is the percentile in minutes.
func (q Quantile) Minutes() float64 { return q.D.Minutes() }

// Result is the measured performance of one policy on one workload
// (background note §C4).
type Result struct {
	Policy string
	PRs    int
	// Merged, Rejected and Unfinished count PRs by outcome; PRs is the
	// number that arrived before the simulation stopped.
	Merged, Rejected, Unfinished int
	// Stopped explains an early stop (the queue outgrew RunOptions.MaxQueue:
	// the policy cannot keep up); empty when the simulation ran to the end.
	Stopped string
	// Beyond is set when RunOptions.GiveUpBeyond stopped the run: its p95
	// exceeds that bound (P95 is then not measured, only bounded).
	Beyond bool
	// P50, P95 and P99 are time-to-merge percentiles (arrival → merged)
	// over PRs after the warm-up; PRs still open at the end count as
	// merging at the end (lower bounds).
	P50, P95, P99 Quantile
	// MeanDecision is the mean time from arrival to merge or rejection
	// over every concluded PR after the warm-up.
	MeanDecision time.Duration
	// Throughput is merges per hour between the first arrival and the
	// last merge.
	Throughput float64
	// Capacity is merges per hour in the steady state of a saturated run
	// (Workload.Backlog; 0 otherwise): between the decisions of the
	// SaturatedFrom and SaturatedTo shares of the backlog.
	Capacity float64
	// CIRuns and CIMinutes are totals; per merged PR below.
	CIRuns          int
	CIMinutes       float64
	RunsPerMerge    float64
	MinutesPerMerge float64
	// WronglyMerged counts broken PRs that landed; FalseRejections the
	// times a good PR was ejected as failed (a resubmitted PR counts once
	// per ejection, RunOptions.Resubmit).
	WronglyMerged   int
	FalseRejections int
	// GitHubWrites and GitHubCalls count the GitHub requests our engine's
	// calls stand for (the World's cost model, world_cost.go): the
	// content-creating ones, and all of them; WritesPerMerge and
	// CallsPerMerge per merged PR. PeakHourlyWrites is the most writes
	// within any simulated hour, against GitHub's 500 an hour per
	// installation. Zero for the baselines, which have no GitHub.
	GitHubWrites, GitHubCalls     int
	WritesPerMerge, CallsPerMerge float64
	PeakHourlyWrites              int
	// GitHubByCall splits the requests by port method (nil for the
	// baselines).
	GitHubByCall map[string]GitHubCost
	// Waits are the times-to-merge behind the percentiles, ascending: of
	// the merged PRs after the warm-up, and of those still open their wait
	// so far (TuneEvaluator pools them over seeds).
	Waits []time.Duration
	// MaxDepth is the largest number of PRs in the queue at once.
	MaxDepth int
	// Thirds are the median time-to-merge of the merged PRs that arrived
	// in the second and in the last third of the arrivals (zero when none
	// merged): at steady state they are about equal (SteadyTolerance).
	Thirds [2]time.Duration
	// Retunes are ours(auto)'s changes of settings ("3.5 h: flake rate
	// rose to 9 %: …"), and SlowestRetune the longest a retuning took
	// (wall time); empty for every other policy.
	Retunes       []string
	SlowestRetune time.Duration
	// Observed is what ours(auto)'s observer saw at the end of the run
	// (its window); zero for every other policy.
	Observed autotune.Observation
	// Trace is what our engine did over time, with RunOptions.Trace (nil
	// otherwise and for the baselines).
	Trace *Trace
	// Rounds is the number of synchronous speculation rounds (0 otherwise).
	Rounds int
	// Violations are invariant violations reported by the simulated
	// GitHub (policy "ours" only; must be empty).
	Violations []string
	// Wall is the real time the simulation took.
	Wall time.Duration
}

// setGitHubCost records what the calls of a run of our engine cost on
// GitHub (the World's requests).
func (res *Result) setGitHubCost(w *World) {
	c := w.Requests()
	res.GitHubWrites, res.GitHubCalls, res.PeakHourlyWrites = c.Writes, c.Calls(), w.PeakHourlyWrites()
	res.GitHubByCall = w.RequestsByCall()
	if res.Merged > 0 {
		res.WritesPerMerge = float64(c.Writes) / float64(res.Merged)
		res.CallsPerMerge = float64(c.Calls()) / float64(res.Merged)
	}
}

// Summarize turns a finished simulation's records into a Result. end is
// the virtual time the simulation stopped.
func Summarize(policy string, w Workload, rec *Recorder, end time.Duration) Result {
	res := Result{Policy: policy, CIRuns: rec.Runs, CIMinutes: rec.CITime.Minutes(), Rounds: rec.Rounds,
		FalseRejections: rec.Resubmitted}
	arrived := 0
	for _, r := range rec.Records {
		if r.Arrival <= end {
			arrived++
		}
	}
	skip := int(math.Floor(w.Warmup * float64(arrived)))
	type sample struct {
		d    time.Duration
		open bool
	}
	var ttm []sample
	var decidedHours float64 // float: sums of many long waits overflow a Duration
	var decidedN int
	var first, lastMerge time.Duration = -1, 0
	for i, r := range rec.Records {
		if r.Arrival > end {
			continue // never arrived: the simulation stopped early
		}
		res.PRs++
		if first < 0 || r.Arrival < first {
			first = r.Arrival
		}
		switch r.Outcome {
		case Merged:
			res.Merged++
			lastMerge = max(lastMerge, r.End)
			if r.Bad {
				res.WronglyMerged++
			}
		case Rejected:
			res.Rejected++
			if !r.Bad {
				res.FalseRejections++
			}
		default:
			res.Unfinished++
		}
		if i < skip {
			continue
		}
		switch r.Outcome {
		case Merged:
			ttm = append(ttm, sample{d: r.End - r.Arrival})
		case Open:
			ttm = append(ttm, sample{d: end - r.Arrival, open: true})
		}
		if r.Outcome != Open {
			decidedHours += (r.End - r.Arrival).Hours()
			decidedN++
		}
	}
	sort.SliceStable(ttm, func(i, j int) bool { return ttm[i].d < ttm[j].d })
	pct := func(p float64) Quantile {
		if len(ttm) == 0 {
			return Quantile{}
		}
		k := max(int(math.Ceil(p*float64(len(ttm))))-1, 0)
		atLeast := false
		// An open PR at or below the rank may really take longer, so the
		// percentile is then only a lower bound.
		for _, s := range ttm[:k+1] {
			atLeast = atLeast || s.open
		}
		return Quantile{D: ttm[k].d, AtLeast: atLeast}
	}
	res.P50, res.P95, res.P99 = pct(0.50), pct(0.95), pct(0.99)
	res.Waits = make([]time.Duration, len(ttm))
	for i, s := range ttm {
		res.Waits[i] = s.d
	}
	if decidedN > 0 {
		res.MeanDecision = time.Duration(decidedHours / float64(decidedN) * float64(time.Hour))
	}
	if res.Merged > 0 {
		if span := lastMerge - first; span > 0 {
			res.Throughput = float64(res.Merged) / span.Hours()
		}
		res.RunsPerMerge = float64(res.CIRuns) / float64(res.Merged)
		res.MinutesPerMerge = res.CIMinutes / float64(res.Merged)
	}
	arrivedRecs := make([]Record, 0, len(rec.Records))
	for _, r := range rec.Records {
		if r.Arrival <= end {
			arrivedRecs = append(arrivedRecs, r)
		}
	}
	res.MaxDepth = maxDepth(arrivedRecs)
	res.Thirds = thirds(arrivedRecs)
	if w.Backlog {
		res.Capacity = steadyCapacity(rec.Records)
	}
	return res
}

// thirds returns the median time-to-merge of the merged PRs among the
// second and the last third of records (in arrival order).
func thirds(records []Record) [2]time.Duration {
	n := len(records)
	var out [2]time.Duration
	for k, part := range [][]Record{records[n/3 : 2*n/3], records[2*n/3:]} {
		var ds []time.Duration
		for _, r := range part {
			if r.Outcome == Merged {
				ds = append(ds, r.End-r.Arrival)
			}
		}
		if len(ds) == 0 {
			continue
		}
		slices.Sort(ds)
		out[k] = ds[(len(ds)-1)/2]
	}
	return out
}

// maxDepth sweeps arrivals and conclusions for the most PRs in the queue.
func maxDepth(records []Record) int {
	type edge struct {
		at    time.Duration
		delta int
	}
	edges := make([]edge, 0, 2*len(records))
	for _, r := range records {
		edges = append(edges, edge{r.Arrival, +1})
		if r.Outcome != Open {
			edges = append(edges, edge{r.End, -1})
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].at != edges[j].at {
			return edges[i].at < edges[j].at
		}
		return edges[i].delta < edges[j].delta // leave before arriving at the same instant
	})
	depth, best := 0, 0
	for _, e := range edges {
		depth += e.delta
		best = max(best, depth)
	}
	return best
}
