package readside

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// fixedVersions is a QueueVersions whose version the test sets.
type fixedVersions struct {
	mu sync.Mutex
	v  uint64
}

func (f *fixedVersions) QueueVersion(int64) uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.v
}

// joined is how many readers wait for queue id's load in progress.
func (vs *views) joined(id int64) int {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if l := vs.loading[id]; l != nil {
		return l.joined
	}
	return 0
}

// Readers who find a queue's view stale together load it once: they wait
// for the load in progress, which began at their version, and get its view;
// a reader at a later version does not take an older load's view.
func TestViewLoadsAreShared(t *testing.T) {
	t.Parallel()
	vs := &views{versions: &fixedVersions{v: 5}, byID: map[int64]*queueView{}, ids: map[queue.QueueKey]int64{}, loading: map[int64]*viewLoad{}}
	release := make(chan struct{})
	var mu sync.Mutex
	loads := 0
	load := func(version uint64) (*queueView, error) {
		mu.Lock()
		loads++
		mu.Unlock()
		<-release
		return &queueView{version: version, q: &queue.Queue{ID: 1}}, nil
	}
	const readers = 8
	got := make(chan *queueView, readers)
	go func() {
		v, err := vs.load(1, 5, load)
		if err != nil {
			t.Error(err)
		}
		got <- v
	}()
	deadline := time.Now().Add(30 * time.Second)
	for func() bool { mu.Lock(); defer mu.Unlock(); return loads == 0 }() {
		if time.Now().After(deadline) {
			t.Fatal("the first load did not start")
		}
		time.Sleep(time.Millisecond) // polling interval
	}
	for range readers - 1 {
		go func() {
			v, err := vs.load(1, 5, load)
			if err != nil {
				t.Error(err)
			}
			got <- v
		}()
	}
	for vs.joined(1) < readers-1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d readers joined the load, want %d", vs.joined(1), readers-1)
		}
		time.Sleep(time.Millisecond) // polling interval
	}
	close(release)
	first := <-got
	for range readers - 1 {
		if v := <-got; v != first {
			t.Error("a reader got another load's view")
		}
	}
	if loads != 1 {
		t.Errorf("%d readers loaded the view %d times, want once", readers, loads)
	}
	if vs.byID[1] != first {
		t.Error("the loaded view was not kept")
	}

	// A load at version 5 in progress does not serve a reader at 6.
	release6 := make(chan struct{})
	slow := func(version uint64) (*queueView, error) {
		<-release6
		return &queueView{version: version, q: &queue.Queue{ID: 1}}, nil
	}
	done := make(chan struct{})
	go func() { _, _ = vs.load(1, 5, slow); close(done) }()
	for func() bool { vs.mu.Lock(); defer vs.mu.Unlock(); return vs.loading[1] == nil }() {
		time.Sleep(time.Millisecond) // polling interval
	}
	v6, err := vs.load(1, 6, func(version uint64) (*queueView, error) {
		return &queueView{version: version, q: &queue.Queue{ID: 1}}, nil
	})
	if err != nil || v6.version != 6 {
		t.Fatalf("reader at version 6 got %+v, %v", v6, err)
	}
	close(release6)
	<-done
	if vs.byID[1].version != 6 {
		t.Errorf("an older load replaced the newer view: version %d kept", vs.byID[1].version)
	}

	// A failed load fails its readers, and keeps nothing.
	boom := errors.New("disk on fire")
	if _, err := vs.load(2, 6, func(uint64) (*queueView, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("failed load: %v", err)
	}
	if vs.byID[2] != nil || vs.loading[2] != nil {
		t.Error("a failed load left a view or a load behind")
	}
}
