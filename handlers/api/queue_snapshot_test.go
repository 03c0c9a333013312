package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// snapshotService is the fake service (and read side) also offering QueueSnapshots.
type snapshotService struct {
	*fakeService
	mu    sync.Mutex
	snap  *readside.QueueSnapshot
	err   error
	calls int
}

func (s *snapshotService) QueueSnapshot(_ context.Context, _ queue.QueueKey) (*readside.QueueSnapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return s.snap, s.err
}

func (s *snapshotService) set(snap *readside.QueueSnapshot, err error) {
	s.mu.Lock()
	s.snap, s.err = snap, err
	s.mu.Unlock()
}

// getQueue answers a read side's snapshot exactly as it answers GetQueue,
// encodes each snapshot once, and maps its failures the same way.
func TestGetQueueFromSnapshots(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	s := queue.DefaultSettings()
	s.Concurrency = 3
	q := &queue.Queue{ID: 7, Key: testKey, State: queue.QueuePaused, Settings: s}
	entries := []*queue.Entry{
		testEntry(12, queue.StateTesting, 0, "urgent", false),
		testEntry(13, queue.StatePending, 100, "medium", true),
		testEntry(14, queue.StateNotReady, 100, "medium", true),
	}
	h.svc.configure(func(f *fakeService) { f.getQueue, f.getEntries = q, entries })
	plain := h.post("getQueue", body())
	if plain.status != http.StatusOK {
		t.Fatalf("plain getQueue: %d %s", plain.status, plain.body)
	}

	snaps := &snapshotService{fakeService: &fakeService{}}
	srv := httptest.NewServer(New(snaps, snaps, h.tokens, Options{Now: h.nowFunc()}))
	t.Cleanup(srv.Close)
	post := func() response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/getQueue", strings.NewReader(body()))
		req.Header.Set(TokenHeader, secretAll)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return response{status: resp.StatusCode, header: resp.Header, body: readAll(t, resp)}
	}

	snap := &readside.QueueSnapshot{Queue: q, Entries: entries}
	snaps.set(snap, nil)
	got := post()
	if got.status != plain.status || got.body != plain.body || got.header.Get("Content-Type") != plain.header.Get("Content-Type") {
		t.Fatalf("from a snapshot: %d %q\nplain: %d %q", got.status, got.body, plain.status, plain.body)
	}
	// The snapshot's answer is kept with it: changing the snapshot behind
	// the API's back (which a read side must never do) shows that it was
	// not encoded again.
	q.State = queue.QueueRunning
	if again := post(); again.body != plain.body {
		t.Errorf("the same snapshot was encoded again: %s", again.body)
	}
	snaps.set(&readside.QueueSnapshot{Queue: q, Entries: entries}, nil)
	if fresh := post(); !strings.Contains(fresh.body, `"state":"running"`) {
		t.Errorf("a new snapshot answered the old encoding: %s", fresh.body)
	}
	if len(h.svc.getKeys) != 1 || snaps.calls != 3 {
		t.Errorf("GetQueue called %d times, QueueSnapshot %d; want 1 and 3", len(h.svc.getKeys), snaps.calls)
	}

	snaps.set(nil, queue.ErrNotFound)
	wantError(t, post(), http.StatusNotFound, "no queue for branch")
	snaps.set(nil, errors.New("disk on fire"))
	wantError(t, post(), http.StatusInternalServerError)
}
