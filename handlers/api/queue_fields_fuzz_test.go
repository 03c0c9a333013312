package api

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// FuzzUpdateQueueFields feeds any body through updateQueue's decoding and
// the queue's ApplySettings, as the service runs it on a queue with the
// default settings. Every refusal is a 400 on one line; accepted settings
// are valid, applying the update again changes nothing, and the queue as
// the API shows it, sent back as an update, reads back the same.
func FuzzUpdateQueueFields(f *testing.F) {
	for _, s := range []string{
		body(`"state":"paused"`),
		body(`"mode":"PARALLEL"`, `"concurrency":4`, `"bisectionConcurrency":2`, `"bisectionParts":3`),
		body(`"batch":true`, `"batchingMinSize":2`, `"batchingMaxSize":8`, `"batchingMaxWaitTimeMinutes":0`),
		body(`"requiredStatuses":["ci/test","lint"]`),
		body(`"requiredStatuses":[]`),
		body(`"requiredStatuses":["ci"]`, `"deleteRequiredStatuses":true`),
		body(`"requiredStatuses":[" "]`),
		body(`"requiredStatuses":[null]`),
		body(`"enqueueingLabel":"ship it"`),
		body(`"enqueueingLabel":"tab\there"`),
		body(`"enqueueingLabel":"` + "😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀" + `"`),
		body(`"mergeMethod":"Rebase"`, `"directMergeMode":"always"`, `"optimizationMode":"bisection_skip_redundant_tests"`),
		body(`"mergeMethod":"fast-forward"`),
		body(`"state":"switching_modes"`),
		body(`"state":"deleted"`),
		body(`"concurrency":0`), body(`"concurrency":1001`), body(`"concurrency":-1`),
		body(`"concurrency":"4"`), body(`"concurrency":4.5`), body(`"concurrency":1e3`),
		body(`"concurrency":99999999999999999999`),
		body(`"bisectionConcurrency":0`), body(`"batchingMaxSize":0`), body(`"bisectionParts":1`), body(`"bisectionParts":101`),
		body(`"batchingMinSize":8`, `"batchingMaxSize":4`),
		body(`"testingTimeoutMinutes":-5`), body(`"notReadyTimeoutHours":-1`), body(`"pendingFailureDepth":-1`),
		body(`"notReadyTimeoutHours":2562048`), body(`"notReadyTimeoutHours":8760`), body(`"testingTimeoutMinutes":10081`),
		body(`"batchingMaxWaitTimeMinutes":1441`), body(`"batchingMinSize":1000`, `"batchingMaxSize":1001`),
		body(`"allowedBotSubmitters":["ci-user"]`), body(`"allowedBotSubmitters":["Renovate[BOT]","a[bot]"]`),
		body(`"batch":"yes"`), body(`"commentsEnabled":null`), body(`"mode":null`),
		body(`"branch":"other"`, `"enqueuedPullRequests":[]`),
		`{"mode":"single"}`, `[]`, `null`, `{`, "{\"mode\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, u, err := applyUpdate(b)
		if err != nil {
			wantRejected(t, err, true, b)
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("accepted invalid settings %+v from %q: %v", s, b, err)
		}
		if again, err := u.ApplySettings(s); err != nil || !reflect.DeepEqual(again, s) {
			t.Fatalf("applying %q twice: %+v, %v; want %+v", b, again, err, s)
		}
		shown := newQueueJSON(&queue.Queue{Key: testKey, State: queue.QueueRunning, Settings: s})
		echo, err := json.Marshal(struct {
			queueRequest
			queueJSON
		}{queueRequest{repoField{"github.com", "octo", "widgets"}, "main"}, shown})
		if err != nil {
			t.Fatal(err)
		}
		back, _, err := applyUpdate(echo)
		if err != nil {
			t.Fatalf("the queue from %q, sent back, is refused: %v (%s)", b, err, echo)
		}
		if got := newQueueJSON(&queue.Queue{Key: testKey, State: queue.QueueRunning, Settings: back}); !reflect.DeepEqual(got, shown) {
			t.Fatalf("the queue from %q reads back as %+v, want %+v", b, got, shown)
		}
	})
}

// applyUpdate decodes an updateQueue body and applies it to the default
// settings, as the API and the queue service do.
func applyUpdate(b []byte) (queue.Settings, queue.QueueUpdate, error) {
	var req updateQueueRequest
	if err := decodeJSON(b, &req); err != nil {
		return queue.Settings{}, queue.QueueUpdate{}, err
	}
	if err := req.queueRequest.validate(); err != nil {
		return queue.Settings{}, queue.QueueUpdate{}, err
	}
	u, err := req.update()
	if err != nil {
		return queue.Settings{}, u, err
	}
	s, err := u.ApplySettings(queue.DefaultSettings())
	return s, u, err
}
