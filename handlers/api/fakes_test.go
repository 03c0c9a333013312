package api

import (
	"context"
	"sync"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/queue"
)

// cancelCall records one Cancel.
type cancelCall struct {
	Key      queue.QueueKey
	PRNumber int
	Reason   queue.Reason
	Detail   string
}

// fakeService is a Service that records calls and answers what it is told.
type fakeService struct {
	mu sync.Mutex

	createCalls   []queue.Settings
	createKeys    []queue.QueueKey
	createUpdates []queue.QueueUpdate
	createErr     error

	getKeys    []queue.QueueKey
	getQueue   *queue.Queue
	getEntries []*queue.Entry
	getErr     error

	submits   []queue.SubmitRequest
	submitErr error

	cancels   []cancelCall
	cancelErr error

	submittedKeys []queue.QueueKey
	submitted     *queue.SubmittedPR
	submittedErr  error

	// panicMsg, when set, makes every call panic.
	panicMsg string

	// extra holds the answers of the later operations (fakes_more_test.go).
	extra moreFakes
}

func (f *fakeService) maybePanic() {
	if f.panicMsg != "" {
		panic(f.panicMsg)
	}
}

func (f *fakeService) CreateQueueFrom(_ context.Context, key queue.QueueKey, u queue.QueueUpdate) (*queue.Queue, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.maybePanic()
	s, err := u.ApplySettings(queue.DefaultSettings())
	f.createKeys = append(f.createKeys, key)
	f.createCalls = append(f.createCalls, s)
	f.createUpdates = append(f.createUpdates, u)
	if f.createErr != nil {
		return nil, f.createErr
	}
	if err != nil {
		return nil, err
	}
	return &queue.Queue{ID: 1, Key: key, State: queue.QueueRunning, Settings: s}, nil
}

func (f *fakeService) GetQueue(_ context.Context, key queue.QueueKey) (*queue.Queue, []*queue.Entry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.maybePanic()
	f.getKeys = append(f.getKeys, key)
	if f.getErr != nil {
		return nil, nil, f.getErr
	}
	return f.getQueue, f.getEntries, nil
}

func (f *fakeService) Submit(_ context.Context, req queue.SubmitRequest) (*queue.Entry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.maybePanic()
	f.submits = append(f.submits, req)
	if f.submitErr != nil {
		return nil, f.submitErr
	}
	return &queue.Entry{ID: "e1", PRNumber: req.PRNumber, State: queue.StateNotReady}, nil
}

func (f *fakeService) Cancel(_ context.Context, key queue.QueueKey, n int, reason queue.Reason, detail string) (*queue.Entry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.maybePanic()
	f.cancels = append(f.cancels, cancelCall{key, n, reason, detail})
	if f.cancelErr != nil {
		return nil, f.cancelErr
	}
	return &queue.Entry{ID: "e1", PRNumber: n, State: queue.StateCancelled}, nil
}

func (f *fakeService) GetSubmitted(_ context.Context, key queue.QueueKey, n int) (*queue.SubmittedPR, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.maybePanic()
	f.submittedKeys = append(f.submittedKeys, key)
	if f.submittedErr != nil {
		return nil, f.submittedErr
	}
	return f.submitted, nil
}

// configure changes the fake's answers under its lock.
func (f *fakeService) configure(fn func(f *fakeService)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// serviceCalls is a copy of what the fake recorded.
type serviceCalls struct {
	createKeys    []queue.QueueKey
	creates       []queue.Settings
	createUpdates []queue.QueueUpdate
	getKeys       []queue.QueueKey
	submits       []queue.SubmitRequest
	cancels       []cancelCall
	submittedKeys []queue.QueueKey
}

func (f *fakeService) calls() serviceCalls {
	f.mu.Lock()
	defer f.mu.Unlock()
	return serviceCalls{
		createKeys:    append([]queue.QueueKey(nil), f.createKeys...),
		creates:       append([]queue.Settings(nil), f.createCalls...),
		createUpdates: append([]queue.QueueUpdate(nil), f.createUpdates...),
		getKeys:       append([]queue.QueueKey(nil), f.getKeys...),
		submits:       append([]queue.SubmitRequest(nil), f.submits...),
		cancels:       append([]cancelCall(nil), f.cancels...),
		submittedKeys: append([]queue.QueueKey(nil), f.submittedKeys...),
	}
}

// tokensFixture is an unscoped, live token.
func tokensFixture() apitoken.Token { return apitoken.Token{Name: "fixture"} }
