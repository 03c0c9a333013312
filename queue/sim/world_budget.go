package sim

import (
	"maps"
	"sort"
	"time"

	"github.com/mergequeue/mq/queue"
)

// GitHub's documented secondary limits on the content-creating requests of
// one installation (the World is one installation).
const (
	WritesPerMinute = 80
	WritesPerHour   = 500
)

var _ queue.WriteHeadroom = (*World)(nil)

// writeLog keeps the times of the writes of the last hour (simulated
// time), for the headroom of the write budget and the busiest hour.
type writeLog struct {
	times []time.Time // oldest first
	peak  int         // most writes within one hour so far
}

// add records n writes at at (never before the last one recorded: the
// clock does not go back).
func (l *writeLog) add(at time.Time, n int) {
	if n <= 0 {
		return
	}
	l.trim(at)
	for range n {
		l.times = append(l.times, at)
	}
	l.peak = max(l.peak, len(l.times))
}

// trim forgets the writes an hour or more before now.
func (l *writeLog) trim(now time.Time) {
	i := sort.Search(len(l.times), func(i int) bool { return l.times[i].After(now.Add(-time.Hour)) })
	l.times = l.times[i:]
}

// since counts the writes after from.
func (l *writeLog) since(from time.Time) int {
	return len(l.times) - sort.Search(len(l.times), func(i int) bool { return l.times[i].After(from) })
}

// headroom is the free share of the budget at now: 1 − the larger of the
// minute's and the hour's used share, never below 0.
func (l *writeLog) headroom(now time.Time) float64 {
	used := max(float64(l.since(now.Add(-time.Minute)))/WritesPerMinute,
		float64(l.since(now.Add(-time.Hour)))/WritesPerHour)
	return max(0, 1-used)
}

// WriteHeadroom is the free share of the installation's write budget now
// (queue.WriteHeadroom): 1 − max(writes in the last minute / 80, writes in
// the last hour / 500), in simulated time, over the writes the World
// charged (see world_cost.go). The World is one installation: repo does
// not matter.
func (w *World) WriteHeadroom(queue.Repo) float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeLog.headroom(w.now())
}

// PeakHourlyWrites is the most writes the World was charged within any
// hour (a sliding window) so far.
func (w *World) PeakHourlyWrites() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeLog.peak
}

// Requests is what the calls served so far would have cost on GitHub.
func (w *World) Requests() GitHubCost {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.requests
}

// RequestsByCall is Requests per port method.
func (w *World) RequestsByCall() map[string]GitHubCost {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.requestsBy)
}

// spend charges a call of method with c; the caller holds the lock.
func (w *World) spend(method string, c GitHubCost) {
	if c == (GitHubCost{}) {
		return
	}
	w.requests = w.requests.plus(c)
	w.requestsBy[method] = w.requestsBy[method].plus(c)
	w.writeLog.add(w.now(), c.Writes)
}
