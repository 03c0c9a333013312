package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/queue"
)

// secretReadOnly is a read-only token the tests below add to a harness.
const secretReadOnly = "mq_readonly"

// readOnlyHarness is a harness with a read-only token and a service that
// has something to show on every read.
func readOnlyHarness(t *testing.T) *harness {
	h := newHarness(t)
	h.tokens.Add(secretReadOnly, apitoken.Token{Name: "viewer", ReadOnly: true})
	entry := testEntry(1, queue.StateTesting, 0, "urgent", false)
	h.svc.configure(func(f *fakeService) {
		f.getQueue = &queue.Queue{ID: 7, Key: testKey, State: queue.QueueRunning, Settings: queue.DefaultSettings()}
		f.getEntries = []*queue.Entry{entry}
		f.submitted = &queue.SubmittedPR{Entry: entry, TestRunID: "run-1", QueuePosition: 1, IsCurrentlySubmitted: true}
	})
	h.svc.configureMore(func(m *moreFakes) { m.details = detailsFixture(queue.RunFailed) })
	return h
}

// writeOperations are the operations that change something.
var writeOperations = []string{"submitPullRequest", "cancelPullRequest", "restartTestsOnPullRequest", "setImpactedTargets",
	"createQueue", "updateQueue", "deleteQueue"}

// A read-only token is refused with 403 on every write operation, naming
// the token and the operation, before the service is called (it panics
// here, which a full token reaches).
func TestReadOnlyTokenIsRefusedOnWrites(t *testing.T) {
	t.Parallel()
	routes := New(nil, nil, nil, Options{}).(*API).routes
	var marked []string
	for _, op := range operations() {
		if routes[op].write {
			marked = append(marked, op)
		}
	}
	if strings.Join(marked, " ") != strings.Join(sortedCopy(writeOperations), " ") {
		t.Errorf("write operations = %v, want %v", marked, writeOperations)
	}
	for _, op := range writeOperations {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			h := readOnlyHarness(t)
			h.svc.configure(func(f *fakeService) { f.panicMsg = "the service was called" })
			req := body(`"pr":{"number":1,"sha":"`+testSHA+`"}`, `"impactedTargets":["a"]`)
			r := h.do(http.MethodPost, "/v1/"+op, secretReadOnly, strings.NewReader(req))
			wantError(t, r, http.StatusForbidden, `API token "viewer" is read-only`, op)
			if full := h.do(http.MethodPost, "/v1/"+op, secretAll, strings.NewReader(req)); full.status != http.StatusInternalServerError {
				t.Errorf("a full token did not reach the service: %d %q", full.status, full.body)
			}
		})
	}
}

// On every read operation a read-only token is answered exactly as a full
// token is.
func TestReadOnlyTokenReads(t *testing.T) {
	t.Parallel()
	reads := map[string]struct{ method, path, body string }{
		"getQueue":                    {http.MethodPost, "/v1/getQueue", body()},
		"getSubmittedPullRequest":     {http.MethodPost, "/v1/getSubmittedPullRequest", body(`"pr":{"number":1}`)},
		"getMergeQueueTestingDetails": {http.MethodPost, "/v1/getMergeQueueTestingDetails", body(`"testRunId":"r1"`)},
		"listPullRequests":            {http.MethodPost, "/v1/listPullRequests", body()},
		"getMergeQueueMetrics":        {http.MethodGet, "/v1/getMergeQueueMetrics?repo.host=github.com&repo.owner=octo&repo.name=widgets&targetBranch=main", ""},
	}
	for _, op := range operations() {
		read, ok := reads[op]
		if New(nil, nil, nil, Options{}).(*API).routes[op].write {
			continue
		}
		if !ok {
			t.Errorf("read operation %s is not tested", op)
			continue
		}
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			h := readOnlyHarness(t)
			full := h.do(read.method, read.path, secretAll, strings.NewReader(read.body))
			ro := h.do(read.method, read.path, secretReadOnly, strings.NewReader(read.body))
			if ro.status != http.StatusOK || ro.status != full.status || ro.body != full.body {
				t.Errorf("read-only: %d %q; full token: %d %q", ro.status, ro.body, full.status, full.body)
			}
		})
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
