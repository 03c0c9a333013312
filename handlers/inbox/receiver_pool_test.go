package inbox

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingObserver counts the pool's refusals.
type countingObserver struct{ refused atomic.Int64 }

func (o *countingObserver) BodyPoolRefused() { o.refused.Add(1) }

// unreadable is a body that fails the test if anything reads it.
type unreadable struct{ t *testing.T }

func (u unreadable) Read([]byte) (int, error) {
	u.t.Error("the body was read")
	return 0, io.ErrUnexpectedEOF
}

// A Content-Length over the limit is refused 413 before the body is read,
// and one over the budget free now is refused 503 with Retry-After, also
// unread; nothing is stored.
func TestReceiverRefusesByContentLengthUnread(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		length int64
		budget int64
		status int
	}{
		{"over the limit", MaxBodyBytes + 1, 0, http.StatusRequestEntityTooLarge},
		{"1 GiB", 1 << 30, 0, http.StatusRequestEntityTooLarge},
		{"over the free budget", 2 << 20, 1 << 20, http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			inbox := newFakeInbox()
			var obs countingObserver
			r, err := NewReceiver(testSecret, inbox, nil, WithBodyBudget(tt.budget), WithReceiverObserver(&obs))
			if err != nil {
				t.Fatal(err)
			}
			req := hookRequest("push", "d-1", wrongSignature, nil)
			req.Body = io.NopCloser(unreadable{t})
			req.ContentLength = tt.length
			rec := serve(r, req)
			if rec.Code != tt.status || inbox.count() != 0 {
				t.Fatalf("got %d with %d stored, want %d and nothing: %s", rec.Code, inbox.count(), tt.status, rec.Body)
			}
			busy := tt.status == http.StatusServiceUnavailable
			if got := rec.Header().Get("Retry-After"); busy && got != "10" {
				t.Errorf("Retry-After %q, want 10", got)
			}
			if want := map[bool]int64{true: 1}[busy]; obs.refused.Load() != want {
				t.Errorf("observer counted %d refusals, want %d", obs.refused.Load(), want)
			}
		})
	}
}

// A chunked body that does not fit in the budget is refused 503 once the
// budget is spent, and gives back what it held.
func TestReceiverRefusesBodyPastTheBudget(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	var obs countingObserver
	r, err := NewReceiver(testSecret, inbox, nil, WithBodyBudget(1<<20), WithReceiverObserver(&obs))
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"pad":"` + strings.Repeat("x", 2<<20) + `"}`)
	req := hookRequest("push", "d-1", Sign([]byte(testSecret), body), body)
	req.ContentLength = -1 // unknown: read until the budget is spent
	rec := serve(r, req)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "10" || inbox.count() != 0 {
		t.Fatalf("got %d (Retry-After %q) with %d stored, want 503, 10 and nothing",
			rec.Code, rec.Header().Get("Retry-After"), inbox.count())
	}
	if obs.refused.Load() != 1 || r.BodyBytesHeld() != 0 {
		t.Fatalf("%d refusals counted, %d bytes still held; want 1 and 0", obs.refused.Load(), r.BodyBytesHeld())
	}
	// Within the budget, the same kind of body is stored whole.
	small := []byte(`{"pad":"` + strings.Repeat("y", 300<<10) + `"}`)
	req = hookRequest("push", "d-2", Sign([]byte(testSecret), small), small)
	req.ContentLength = -1
	if rec := serve(r, req); rec.Code != http.StatusOK {
		t.Fatalf("a body within the budget: %d %s", rec.Code, rec.Body)
	}
	if d, ok := inbox.get("d-2"); !ok || string(d.Payload) != string(small) {
		t.Fatal("the body within the budget was not stored whole")
	}
}

// heapBytes is the heap occupied by objects, live or not yet swept.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// floodBound is how far above its baseline the heap may go while 64
// unsigned 24 MiB bodies are sent at once: the body pool's budget
// (DefaultBodyBudget, 128 MiB) and 64 MiB for everything else (the
// servers' and clients' connections, the test's own bookkeeping, chunks
// idle in the pool). Without the pool the same flood buffers every body
// (1.5 GiB, more with io.ReadAll's growth).
const floodBound = DefaultBodyBudget + 64<<20

// filler is a body of n 'x' bytes that allocates nothing.
type filler struct{ left int64 }

var fillerChunk = []byte(strings.Repeat("x", 64<<10))

func (f *filler) Read(p []byte) (int, error) {
	if f.left == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(int64(len(p)), f.left)], fillerChunk)
	f.left -= int64(n)
	return n, nil
}

// 64 concurrent unsigned 24 MiB bodies over loopback keep the heap within
// floodBound of its baseline; the pool's 503s (with Retry-After) reach the
// senders and the observer, nothing is stored, the budget is all given
// back, and a signed delivery is taken right after.
func TestReceiverFloodOfUnsignedBodiesStaysWithinBudget(t *testing.T) {
	// Not parallel: the heap is measured.
	inbox := newFakeInbox()
	var obs countingObserver
	r, err := NewReceiver(testSecret, inbox, nil, WithReceiverObserver(&obs))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(r)
	defer srv.Close()
	client := srv.Client()

	runtime.GC()
	base := heapBytes()
	var peak atomic.Uint64
	ctx, stopSampling := context.WithCancel(context.Background())
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if h := heapBytes(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()

	const senders, size = 64, 24 << 20
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		errs     int
		retry    bool
	)
	var wg sync.WaitGroup
	for i := range senders {
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/github/hook", &filler{left: size})
			if err != nil {
				t.Error(err)
				return
			}
			req.ContentLength = size
			req.Header.Set(HeaderEvent, "push")
			req.Header.Set(HeaderDelivery, "flood-"+strings.Repeat("x", i%7))
			req.Header.Set(HeaderSignature, wrongSignature)
			resp, err := client.Do(req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil { // the server closed the connection before the sender read its answer
				errs++
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			statuses[resp.StatusCode]++
			if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "10" {
				retry = true
			}
		})
	}
	wg.Wait()
	stopSampling()
	<-sampled

	grew := int64(peak.Load()) - int64(base)
	t.Logf("heap peak %d MiB above a %d MiB baseline (bound %d MiB); answers %v, %d connections closed first; %d pool refusals",
		grew>>20, base>>20, floodBound>>20, statuses, errs, obs.refused.Load())
	if grew > floodBound {
		t.Errorf("the heap grew by %d MiB, over the bound of %d MiB", grew>>20, floodBound>>20)
	}
	for status := range statuses {
		if status != http.StatusUnauthorized && status != http.StatusServiceUnavailable {
			t.Errorf("answered %d to an unsigned body: %v", status, statuses)
		}
	}
	if statuses[http.StatusServiceUnavailable] == 0 || !retry || obs.refused.Load() == 0 {
		t.Errorf("no 503 with Retry-After reached a sender (%v) or the observer (%d)", statuses, obs.refused.Load())
	}
	if inbox.count() != 0 {
		t.Errorf("stored %d unsigned deliveries", inbox.count())
	}
	waitFor(t, func() bool { return r.BodyBytesHeld() == 0 })

	body := []byte(`{"zen":"after the flood"}`)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/github/hook", strings.NewReader(string(body)))
	req.Header.Set(HeaderEvent, "ping")
	req.Header.Set(HeaderDelivery, "after")
	req.Header.Set(HeaderSignature, Sign([]byte(testSecret), body))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, ok := inbox.get("after"); resp.StatusCode != http.StatusOK || !ok {
		t.Fatalf("a signed delivery after the flood: %d, stored %v", resp.StatusCode, ok)
	}
}
