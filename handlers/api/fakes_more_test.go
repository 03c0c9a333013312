package api

import (
	"context"
	"sync"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// moreFakes are the fakeService answers of the operations beyond the first
// five, kept apart from fakeService's original fields. Each call is
// recorded; each answer is configured with configureMore.
type moreFakes struct {
	mu sync.Mutex

	updates    []queue.QueueUpdate
	updated    *queue.Queue // returned by UpdateQueue (default: defaults + update)
	updateErr  error
	deletes    []queue.QueueKey
	deleteErr  error
	queues     []*queue.Queue
	queuesErr  error
	restarts   []int
	restartErr error

	listQueries []queue.EntryQuery
	listed      []*queue.SubmittedPR
	listErr     error

	targets    []queue.TargetsUpdate
	targetsErr error
	confirms   []confirmCall
	confirmErr error
	existsKeys []queue.QueueKey
	existsErr  error // QueueExists's answer

	detailsIDs []string
	details    *readside.TestingDetails
	detailsErr error

	metrics    map[int64]*readside.QueueMetrics
	metricsErr error
	metricsFor []int64
}

// confirmCall records one ConfirmForkedRun.
type confirmCall struct {
	Repo     queue.Repo
	PRNumber int
	SHA      string
	RunID    int64
}

func (f *fakeService) more() *moreFakes { return &f.extra }

// configureMore changes the answers of the later operations under their lock.
func (f *fakeService) configureMore(fn func(m *moreFakes)) {
	m := f.more()
	m.mu.Lock()
	defer m.mu.Unlock()
	fn(m)
}

// recorded runs fn on the recorded calls under their lock.
func (f *fakeService) recorded(fn func(m *moreFakes)) {
	f.configureMore(fn)
}

func (f *fakeService) UpdateQueue(_ context.Context, key queue.QueueKey, u queue.QueueUpdate) (*queue.Queue, error) {
	f.maybePanic()
	m := f.more()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.updates = append(m.updates, u)
	if m.updateErr != nil {
		return nil, m.updateErr
	}
	if m.updated != nil {
		return m.updated, nil
	}
	s, err := u.ApplySettings(queue.DefaultSettings())
	if err != nil {
		return nil, err
	}
	q := &queue.Queue{ID: 1, Key: key, State: queue.QueueRunning, Settings: s}
	if u.State != nil {
		q.State = *u.State
	}
	return q, nil
}

func (f *fakeService) DeleteQueue(_ context.Context, key queue.QueueKey) error {
	f.maybePanic()
	m := f.more()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deletes = append(m.deletes, key)
	return m.deleteErr
}

func (f *fakeService) ListQueues(context.Context) ([]*queue.Queue, error) {
	f.maybePanic()
	m := f.more()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.queues, m.queuesErr
}

func (f *fakeService) Restart(_ context.Context, _ queue.QueueKey, n int) (*queue.Entry, error) {
	f.maybePanic()
	m := f.more()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.restarts = append(m.restarts, n)
	if m.restartErr != nil {
		return nil, m.restartErr
	}
	return &queue.Entry{ID: "e1", PRNumber: n, State: queue.StatePending}, nil
}

func (f *fakeService) ListPullRequests(_ context.Context, _ queue.QueueKey, q queue.EntryQuery) ([]*queue.SubmittedPR, error) {
	f.maybePanic()
	m := f.more()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.listQueries = append(m.listQueries, q)
	if m.listErr != nil {
		return nil, m.listErr
	}
	if len(m.listed) > q.Limit {
		return m.listed[:q.Limit], nil
	}
	return m.listed, nil
}

func (f *fakeService) SetImpactedTargets(_ context.Context, u queue.TargetsUpdate) error {
	f.maybePanic()
	m := f.more()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.targets = append(m.targets, u)
	return m.targetsErr
}

func (f *fakeService) ConfirmForkedRun(_ context.Context, repo queue.Repo, n int, sha string, runID int64) error {
	f.maybePanic()
	m := f.more()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.confirms = append(m.confirms, confirmCall{repo, n, sha, runID})
	return m.confirmErr
}

func (f *fakeService) QueueExists(_ context.Context, key queue.QueueKey) error {
	f.maybePanic()
	m := f.more()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.existsKeys = append(m.existsKeys, key)
	return m.existsErr
}

func (f *fakeService) TestingDetails(_ context.Context, _ queue.QueueKey, id string) (*readside.TestingDetails, error) {
	f.maybePanic()
	m := f.more()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.detailsIDs = append(m.detailsIDs, id)
	if m.detailsErr != nil {
		return nil, m.detailsErr
	}
	return m.details, nil
}

func (f *fakeService) QueueMetrics(_ context.Context, q *queue.Queue, window time.Duration) (*readside.QueueMetrics, error) {
	f.maybePanic()
	m := f.more()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.metricsFor = append(m.metricsFor, q.ID)
	if m.metricsErr != nil {
		return nil, m.metricsErr
	}
	if window != time.Hour {
		panic("metrics window is not one hour")
	}
	if qm, ok := m.metrics[q.ID]; ok {
		out := *qm
		out.Queue = q
		return &out, nil
	}
	return &readside.QueueMetrics{Queue: q, Conclusions: map[queue.EntryState]int{}}, nil
}
