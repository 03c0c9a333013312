package api

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// testClock is a clock the test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// forkHarness is a harness with a movable clock and limits.
func forkHarness(t *testing.T, limits ForkRunLimits) (*harness, *testClock) {
	clock := &testClock{now: testNow}
	h := newHarness(t, func(o *Options) { o.Now, o.ForkRuns = clock.Now, limits })
	return h, clock
}

// forkUpload posts setImpactedTargets for PR pr at testSHA, vouched for by
// run runID alone.
func (h *harness) forkUpload(runID int64, pr int) response {
	h.t.Helper()
	return h.forkedRequest(targetsBody(strconv.Itoa(pr), testSHA, `["//a"]`),
		map[string]string{ForkedRunHeader: strconv.FormatInt(runID, 10)})
}

// confirmsAsked is how many times GitHub was asked to confirm a run.
func (h *harness) confirmsAsked() int {
	var n int
	h.svc.recorded(func(m *moreFakes) { n = len(m.confirms) })
	return n
}

func want429(t *testing.T, r response, retryAfter string) {
	t.Helper()
	wantError(t, r, http.StatusTooManyRequests, "too many", "retry after "+retryAfter+" s")
	if got := r.header.Get("Retry-After"); got != retryAfter {
		t.Errorf("Retry-After = %q, want %q", got, retryAfter)
	}
}

// Issue #15: a forked run request for a queue that does not exist asks
// GitHub nothing and stores nothing.
func TestForkRunForUnknownQueueAsksGitHubNothing(t *testing.T) {
	t.Parallel()
	h, _ := forkHarness(t, ForkRunLimits{})
	h.svc.configureMore(func(m *moreFakes) { m.existsErr = fmt.Errorf("queue: %w", queue.ErrNotFound) })
	for i := range 20 {
		wantError(t, h.forkUpload(int64(1000+i), 12), http.StatusNotFound, `no queue for branch "main" of octo/widgets`)
	}
	if n := h.confirmsAsked(); n != 0 {
		t.Errorf("GitHub was asked to confirm %d runs for a repository without a queue, want 0", n)
	}
	var stored int
	h.svc.recorded(func(m *moreFakes) { stored = len(m.targets) })
	if stored != 0 {
		t.Errorf("%d uploads stored", stored)
	}
}

// Past its address's bucket a request is 429 before its body is read (an
// invalid body is not even reported), and asks GitHub nothing; the bucket
// refills with time.
func TestForkRunAddressLimit(t *testing.T) {
	t.Parallel()
	h, clock := forkHarness(t, ForkRunLimits{PerAddress: Rate{Burst: 3, Every: 10 * time.Second}})
	for i := range 3 {
		wantEmptyObject(t, h.forkUpload(int64(100+i), 12))
	}
	want429(t, h.forkUpload(200, 12), "10")
	want429(t, h.forkedRequest("{not json", map[string]string{ForkedRunHeader: "201"}), "10")
	if n := h.confirmsAsked(); n != 3 {
		t.Errorf("GitHub asked %d times, want 3 (none past the limit)", n)
	}
	// A token request is not limited.
	wantEmptyObject(t, h.post("setImpactedTargets", targetsBody("12", testSHA, `[]`)))
	clock.advance(4 * time.Second)
	want429(t, h.forkUpload(202, 12), "6")
	clock.advance(6 * time.Second)
	wantEmptyObject(t, h.forkUpload(203, 12))
	want429(t, h.forkUpload(204, 12), "10")
}

// Past a repository's budget of confirmations a request is 429 without a
// GitHub call; other repositories, and answers GitHub already gave, are
// not held up.
func TestForkRunRepositoryLimit(t *testing.T) {
	t.Parallel()
	h, clock := forkHarness(t, ForkRunLimits{PerRepository: Rate{Burst: 2, Every: 6 * time.Second}})
	wantEmptyObject(t, h.forkUpload(1, 12))
	wantEmptyObject(t, h.forkUpload(2, 13))
	want429(t, h.forkUpload(3, 14), "6")
	if n := h.confirmsAsked(); n != 2 {
		t.Errorf("GitHub asked %d times, want 2", n)
	}
	wantEmptyObject(t, h.forkUpload(1, 12)) // GitHub's answer is kept
	other := `{"repo":{"host":"github.com","owner":"octo","name":"gadgets"},"targetBranch":"main","pr":{"number":5,"sha":"` + testSHA + `"},"impactedTargets":[]}`
	wantEmptyObject(t, h.forkedRequest(other, map[string]string{ForkedRunHeader: "9"}))
	// The repository's name in another case shares its bucket.
	shouty := strings.Replace(targetsBody("14", testSHA, `[]`), `"octo"`, `"OCTO"`, 1)
	want429(t, h.forkedRequest(shouty, map[string]string{ForkedRunHeader: "3"}), "6")
	if n := h.confirmsAsked(); n != 3 {
		t.Errorf("GitHub asked %d times, want 3", n)
	}
	clock.advance(6 * time.Second)
	wantEmptyObject(t, h.forkUpload(3, 14))
}

// GitHub's answer about a run, PR and SHA is kept: a confirmation for
// Confirmed, a refusal for Refused; a failure to ask is not kept.
func TestForkRunAnswersAreKept(t *testing.T) {
	t.Parallel()
	h, clock := forkHarness(t, ForkRunLimits{Confirmed: time.Minute, Refused: 30 * time.Second})
	for range 5 {
		wantEmptyObject(t, h.forkUpload(1, 12))
	}
	if n := h.confirmsAsked(); n != 1 {
		t.Fatalf("5 uploads of one run asked GitHub %d times, want 1", n)
	}
	wantEmptyObject(t, h.forkUpload(1, 13)) // another PR: asked
	if n := h.confirmsAsked(); n != 2 {
		t.Fatalf("GitHub asked %d times, want 2", n)
	}
	clock.advance(time.Minute)
	wantEmptyObject(t, h.forkUpload(1, 12)) // expired: asked again
	if n := h.confirmsAsked(); n != 3 {
		t.Fatalf("GitHub asked %d times after the confirmation expired, want 3", n)
	}

	h.svc.configureMore(func(m *moreFakes) { m.confirmErr = fmt.Errorf("run completed: %w", queue.ErrRunNotConfirmed) })
	for range 3 {
		wantError(t, h.forkUpload(2, 12), http.StatusUnauthorized, "workflow run 2")
	}
	if n := h.confirmsAsked(); n != 4 {
		t.Fatalf("3 refused uploads asked GitHub %d more times, want 1", n-3)
	}
	h.svc.configureMore(func(m *moreFakes) { m.confirmErr = nil })
	clock.advance(29 * time.Second)
	wantError(t, h.forkUpload(2, 12), http.StatusUnauthorized, "workflow run 2")
	clock.advance(time.Second)
	wantEmptyObject(t, h.forkUpload(2, 12))
	if n := h.confirmsAsked(); n != 5 {
		t.Fatalf("GitHub asked %d times, want 5", n)
	}

	h.svc.configureMore(func(m *moreFakes) { m.confirmErr = fmt.Errorf("502: %w", queue.ErrTransient) })
	for range 2 {
		wantError(t, h.forkUpload(3, 12), http.StatusInternalServerError, "internal error")
	}
	if n := h.confirmsAsked(); n != 7 {
		t.Fatalf("GitHub asked %d times, want 7 (a failure to ask is not kept)", n)
	}
}

// At most InFlight such requests are served at once: past that, 429 at
// once (a slow body holds its slot, not more).
func TestForkRunInFlightBound(t *testing.T) {
	t.Parallel()
	// Only the in-flight bound may refuse here: the per-address bucket
	// (whose clock stands still in this test) must not run dry while
	// the loop below probes.
	h, _ := forkHarness(t, ForkRunLimits{InFlight: 1, PerAddress: Rate{Burst: 1 << 30, Every: time.Second}})
	pr, pw := io.Pipe()
	// On a failure the slow request's body must end, or closing the test
	// server waits for its connection forever (cleanups run last first).
	t.Cleanup(func() { pw.CloseWithError(io.ErrUnexpectedEOF) })
	req, err := http.NewRequest(http.MethodPost, h.srv.URL+"/v1/setImpactedTargets", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(ForkedRunHeader, "1")
	done := make(chan int, 1)
	go func() {
		resp, err := h.srv.Client().Do(req)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	body := targetsBody("12", testSHA, `[]`)
	if _, err := io.WriteString(pw, body[:10]); err != nil {
		t.Fatal(err)
	}
	// Wait until the server admitted the slow request (its slot taken),
	// without probing meanwhile: a probe holding the only slot when the
	// slow request arrives would have it refused instead.
	deadline := time.Now().Add(30 * time.Second)
	for len(h.api.forks.inFlight) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the slow request was not admitted within 30 s")
		}
		time.Sleep(time.Millisecond)
	}
	r := h.forkUpload(2, 12)
	want429(t, r, "1")
	if !strings.Contains(r.body, "at once") {
		t.Fatalf("refused for another reason than the in-flight bound: %q", r.body)
	}
	if _, err := io.WriteString(pw, body[10:]); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if got := <-done; got != http.StatusOK {
		t.Fatalf("the slow request: status %d, want 200", got)
	}
	wantEmptyObject(t, h.forkUpload(2, 12)) // its slot is free again
}

// A forked run's upload over targets set with a token is 403, naming why.
func TestForkRunOverTokenTargetsIsForbidden(t *testing.T) {
	t.Parallel()
	h, _ := forkHarness(t, ForkRunLimits{})
	h.svc.configureMore(func(m *moreFakes) {
		m.targetsErr = fmt.Errorf("store: %w", queue.ErrTargetsSetByToken)
	})
	wantError(t, h.forkUpload(1, 12), http.StatusForbidden,
		"impacted targets of pull request #12 at 0123456 were set with an API token; a forked workflow run cannot replace them")
	var got []queue.TargetsUpdate
	h.svc.recorded(func(m *moreFakes) { got = m.targets })
	if len(got) != 1 || got[0].Source != queue.TargetsFromForkRun || got[0].VerifyPR {
		t.Errorf("updates %+v, want one from a fork run (the PR already read)", got)
	}
}

func TestAddressKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"192.0.2.7:4242":               "192.0.2.7",
		"[::ffff:192.0.2.7]:1":         "192.0.2.7",
		"[2001:db8:1:2:3:4:5:6]:443":   "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff:4:5:6]:80": "2001:db8:1:2::/64",
		"[fe80::1%eth0]:80":            "fe80::/64",
		"not an address":               "not an address",
		"":                             "",
	} {
		if got := addressKey(in); got != want {
			t.Errorf("addressKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// Buckets that refilled are forgotten when room is needed; with every
// kept bucket in use, a new key waits.
func TestTokenBucketsKeepAtMostMaxKeys(t *testing.T) {
	t.Parallel()
	tb := newTokenBuckets(Rate{Burst: 2, Every: time.Second}, 2)
	for _, k := range []string{"a", "b"} {
		if ok, _ := tb.take(k, testNow); !ok {
			t.Fatalf("first take of %s refused", k)
		}
	}
	if ok, wait := tb.take("c", testNow); ok || wait != time.Second {
		t.Fatalf("take(c) with a and b in use = %v, %v; want refused for 1s", ok, wait)
	}
	later := testNow.Add(time.Second) // a and b are full again
	if ok, _ := tb.take("c", later); !ok {
		t.Fatal("take(c) refused once a and b refilled")
	}
	if len(tb.buckets) != 1 {
		t.Errorf("%d buckets kept, want 1 (c)", len(tb.buckets))
	}
	if ok, _ := tb.take("c", later); !ok {
		t.Fatal("second take of c refused within its burst")
	}
	if ok, wait := tb.take("c", later); ok || wait != time.Second {
		t.Fatalf("third take of c = %v, %v; want refused for 1s", ok, wait)
	}
	if ok, _ := tb.take("c", later.Add(-time.Hour)); ok {
		t.Fatal("a clock gone back refilled the bucket")
	}
}
