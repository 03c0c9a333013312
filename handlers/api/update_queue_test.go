package api

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// updatedShape is getQueue's shape without enqueuedPullRequests.
func updatedShape() map[string]string {
	s := map[string]string{}
	for k, v := range queueShape {
		if k != "enqueuedPullRequests" && k != "autoTuning" {
			s[k] = v
		}
	}
	return s
}

// everyField sets every settable field to a non-default value, enums in
// mixed case.
var everyField = []string{
	`"state":"Paused"`, `"mode":"PARALLEL"`, `"concurrency":4`, `"testingTimeoutMinutes":90`,
	`"canOptimisticallyMerge":true`, `"pendingFailureDepth":2`, `"batch":true`, `"batchingMaxWaitTimeMinutes":7`,
	`"batchingMinSize":3`, `"batchingMaxSize":6`, `"createPrsForTestingBranches":true`, `"commentsEnabled":false`,
	`"commandsEnabled":false`, `"statusCheckEnabled":false`, `"bisectionConcurrency":2`,
	`"requiredStatuses":["ci/test","lint"]`, `"directMergeMode":"Always"`,
	`"optimizationMode":"BISECTION_SKIP_REDUNDANT_TESTS"`, `"mergeMethod":"Merge_Commit"`,
	`"enqueueingLabel":"ship-it"`, `"labelCommandsEnabled":false`, `"stateLabelsEnabled":true`,
	`"extensionEnabled":false`, `"notReadyTimeoutHours":24`, `"bisectionParts":4`,
	`"testBranchConstructionMode":"RENAME_TEMP_BRANCH"`, `"allowedBotSubmitters":["renovate[bot]","ci-app[bot]"]`,
	`"batchingRules":[]`, `"testBranchPrefix":"ci/merge-queue/"`, `"isolationRuns":true`,
}

// everyFieldUpdate is what everyField decodes to: the settings' enums as
// sent, which the queue canonicalizes (queue.QueueUpdate.ApplySettings).
func everyFieldUpdate() queue.QueueUpdate {
	return queue.QueueUpdate{
		State: ptr(queue.QueuePaused), Mode: ptr(queue.Mode("PARALLEL")), Concurrency: ptr(4), TestingTimeoutMinutes: ptr(90),
		CanOptimisticallyMerge: ptr(true), PendingFailureDepth: ptr(2), Batch: ptr(true), BatchingMaxWaitTimeMinutes: ptr(7),
		BatchingMinSize: ptr(3), BatchingMaxSize: ptr(6), CreatePrsForTestingBranches: ptr(true), CommentsEnabled: ptr(false),
		CommandsEnabled: ptr(false), StatusCheckEnabled: ptr(false), BisectionConcurrency: ptr(2),
		RequiredStatuses: ptr([]string{"ci/test", "lint"}), DirectMergeMode: ptr(queue.DirectMergeMode("Always")),
		OptimizationMode: ptr(queue.OptimizationMode("BISECTION_SKIP_REDUNDANT_TESTS")), MergeMethod: ptr(queue.MergeMethod("Merge_Commit")),
		EnqueueingLabel: ptr("ship-it"), LabelCommandsEnabled: ptr(false), StateLabelsEnabled: ptr(true),
		ExtensionEnabled: ptr(false), NotReadyTimeoutHours: ptr(24), BisectionParts: ptr(4),
		TestBranchConstructionMode: ptr(queue.TestBranchConstructionMode("RENAME_TEMP_BRANCH")), AllowedBotSubmitters: ptr([]string{"renovate[bot]", "ci-app[bot]"}),
		TestBranchPrefix: ptr("ci/merge-queue/"), IsolationRuns: ptr(true),
	}
}

func ptr[T any](v T) *T { return &v }

func TestUpdateQueueDecodesEveryField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		extra []string
		want  queue.QueueUpdate
	}{
		{"nothing", nil, queue.QueueUpdate{}},
		{"every field", everyField, everyFieldUpdate()},
		{"null is no change", []string{`"mode":null`, `"concurrency":null`, `"requiredStatuses":null`, `"state":null`}, queue.QueueUpdate{}},
		{"explicitly no required statuses", []string{`"requiredStatuses":[]`}, queue.QueueUpdate{RequiredStatuses: ptr([]string{})}},
		{"delete required statuses", []string{`"deleteRequiredStatuses":true`}, queue.QueueUpdate{DeleteRequiredStatuses: true}},
		{"delete false is no change", []string{`"deleteRequiredStatuses":false`}, queue.QueueUpdate{}},
		{"read-only and unknown fields ignored", []string{`"branch":"other"`, `"enqueuedPullRequests":[{"prNumber":1}]`, `"color":"blue"`}, queue.QueueUpdate{}},
		{"switching_modes echoed", []string{`"state":"SWITCHING_MODES"`}, queue.QueueUpdate{State: ptr(queue.QueueSwitchingModes)}},
		{"new fields null are no change", []string{`"testBranchConstructionMode":null`, `"allowedBotSubmitters":null`,
			`"batchingRules":null`, `"testBranchPrefix":null`}, queue.QueueUpdate{}},
		{"no bots", []string{`"allowedBotSubmitters":[]`}, queue.QueueUpdate{AllowedBotSubmitters: ptr([]string{})}},
		{"batching rules [] is no change", []string{`"batchingRules":[]`}, queue.QueueUpdate{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			decodeObject(t, h.post("updateQueue", body(tt.extra...)))
			var got []queue.QueueUpdate
			h.svc.recorded(func(m *moreFakes) { got = m.updates })
			if len(got) != 1 {
				t.Fatalf("UpdateQueue called %d times", len(got))
			}
			if !reflect.DeepEqual(got[0], tt.want) {
				t.Errorf("update = %s, want %s", showUpdate(got[0]), showUpdate(tt.want))
			}
		})
	}
}

// showUpdate prints the set fields of an update.
func showUpdate(u queue.QueueUpdate) string {
	v := reflect.ValueOf(u)
	var parts []string
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case f.Kind() == reflect.Pointer && !f.IsNil():
			parts = append(parts, fmt.Sprintf("%s=%v", v.Type().Field(i).Name, f.Elem().Interface()))
		case f.Kind() == reflect.Bool && f.Bool():
			parts = append(parts, v.Type().Field(i).Name+"=true")
		}
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// A mode change that waits for runs in progress: the answer shows the new
// mode and the state the queue returns to (SPEC §7), not switching_modes,
// which a client such as the Terraform provider would take for a change it
// did not ask for ("Provider produced inconsistent result after apply").
func TestUpdateQueueAnswersTheQueue(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	s := queue.DefaultSettings()
	s.Concurrency, s.MergeMethod, s.RequiredStatuses = 3, queue.Rebase, []string{}
	h.svc.configureMore(func(m *moreFakes) {
		m.updated = &queue.Queue{Key: testKey, State: queue.QueueSwitchingModes, Settings: s,
			PendingMode: queue.ModeParallel, ResumeState: queue.QueueRunning}
	})
	r := h.post("updateQueue", body(`"mode":"parallel"`))
	m := decodeObject(t, r)
	wantShape(t, "updateQueue", m, updatedShape())
	for k, want := range map[string]string{
		"state": "running", "mode": "parallel", "mergeMethod": "rebase", "concurrency": "3",
		"bisectionConcurrency": "3", "requiredStatuses": "[]", "branch": "main",
	} {
		if got := fmt.Sprint(m[k]); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
	if !strings.Contains(r.body, `"concurrency":3,`) {
		t.Errorf("concurrency is not a JSON integer: %s", r.body)
	}
}

func TestUpdateQueueErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		svcErr  error
		status  int
		want    string
		reaches bool
	}{
		{"unknown queue", body(), fmt.Errorf("load: %w", queue.ErrNotFound), http.StatusNotFound, `no queue for branch "main"`, true},
		{"invalid per the queue", body(`"batchingMinSize":9`), queue.Inputf("batchingMaxSize must be at least batchingMinSize"), http.StatusBadRequest, "batchingMaxSize", true},
		{"store failure", body(), errors.New("disk I/O error"), http.StatusInternalServerError, "internal error", true},
		{"unknown state", body(`"state":"stopped"`), nil, http.StatusBadRequest, `"stopped" is not one of`, false},
		{"unknown mode", body(`"mode":"serial"`), nil, http.StatusBadRequest, `"serial" is not one of single, parallel`, false},
		{"unknown merge method", body(`"mergeMethod":"merge"`), nil, http.StatusBadRequest, "mergeMethod", false},
		{"unknown direct merge mode", body(`"directMergeMode":"sometimes"`), nil, http.StatusBadRequest, "directMergeMode", false},
		{"unknown optimization", body(`"optimizationMode":"fast"`), nil, http.StatusBadRequest, "optimizationMode", false},
		{"concurrency as string", body(`"concurrency":"3"`), nil, http.StatusBadRequest, "invalid field concurrency: expected integer", false},
		{"concurrency fraction", body(`"concurrency":2.5`), nil, http.StatusBadRequest, "concurrency", false},
		{"batch as string", body(`"batch":"yes"`), nil, http.StatusBadRequest, "invalid field batch: expected boolean", false},
		{"required statuses as string", body(`"requiredStatuses":"ci"`), nil, http.StatusBadRequest, "requiredStatuses", false},
		{"required statuses of numbers", body(`"requiredStatuses":[1]`), nil, http.StatusBadRequest, "requiredStatuses", false},
		{"bisection concurrency zero", body(`"bisectionConcurrency":0`), nil, http.StatusBadRequest, "bisectionConcurrency", false},
		{"batching max size zero", body(`"batchingMaxSize":0`), nil, http.StatusBadRequest, "batchingMaxSize", false},
		{"unknown construction mode", body(`"testBranchConstructionMode":"push"`), nil, http.StatusBadRequest,
			`testBranchConstructionMode: "push" is not one of rename_temp_branch`, false},
		{"construction mode as number", body(`"testBranchConstructionMode":1`), nil, http.StatusBadRequest,
			"invalid field testBranchConstructionMode: expected string", false},
		{"bots as string", body(`"allowedBotSubmitters":"renovate[bot]"`), nil, http.StatusBadRequest,
			"invalid field allowedBotSubmitters: expected array", false},
		{"bots of numbers", body(`"allowedBotSubmitters":[7]`), nil, http.StatusBadRequest, "allowedBotSubmitters", false},
		{"bot refused by the queue's rules", body(`"allowedBotSubmitters":["a/b[bot]"]`), nil,
			http.StatusBadRequest, "invalid field allowedBotSubmitters[0]: must hold only", false},
		{"a batching rule", body(`"batchingRules":[{"label":"deps","maxBatchSize":5}]`), nil, http.StatusBadRequest,
			"invalid field batchingRules: batching rules are not supported; only [] is accepted", false},
		{"batching rules as object", body(`"batchingRules":{}`), nil, http.StatusBadRequest, "invalid field batchingRules: expected array", false},
		{"empty prefix", body(`"testBranchPrefix":""`), nil, http.StatusBadRequest,
			`invalid field testBranchPrefix: must not be empty (the default is "mq-merge/")`, false},
		{"prefix as number", body(`"testBranchPrefix":5`), nil, http.StatusBadRequest, "invalid field testBranchPrefix: expected string", false},
		{"missing branch", `{"repo":{"host":"github.com","owner":"o","name":"w"}}`, nil, http.StatusBadRequest, "targetBranch is required", false},
		{"malformed JSON", `{"repo":`, nil, http.StatusBadRequest, "malformed JSON", false},
		{"other host", `{"repo":{"host":"gitlab.com","owner":"o","name":"w"},"targetBranch":"main"}`, nil, http.StatusNotFound, "gitlab.com", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configureMore(func(m *moreFakes) { m.updateErr = tt.svcErr })
			wantError(t, h.post("updateQueue", tt.body), tt.status, tt.want)
			var n int
			h.svc.recorded(func(m *moreFakes) { n = len(m.updates) })
			if (n > 0) != tt.reaches {
				t.Errorf("service reached = %v, want %v", n > 0, tt.reaches)
			}
		})
	}
}

func TestCreateQueueAcceptsEveryField(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	wantEmptyObject(t, h.post("createQueue", body(everyField...)))
	calls := h.svc.calls()
	if len(calls.createUpdates) != 1 {
		t.Fatalf("CreateQueueFrom called %d times", len(calls.createUpdates))
	}
	if got, want := calls.createUpdates[0], everyFieldUpdate(); !reflect.DeepEqual(got, want) {
		t.Errorf("update = %s, want %s", showUpdate(got), showUpdate(want))
	}
}

func TestCreateQueueRefusesBadFieldsBeforeTheService(t *testing.T) {
	t.Parallel()
	for _, extra := range []string{`"batchingMinSize":5,"batchingMaxSize":2`, `"concurrency":1001`, `"enqueueingLabel":""`, `"bisectionParts":1`,
		`"requiredStatuses":[""]`, `"state":"switching_modes"`, `"mergeMethod":"octopus"`,
		`"testBranchConstructionMode":"push"`, `"allowedBotSubmitters":["a/b"]`, `"allowedBotSubmitters":["x[bot]","X[bot]"]`,
		`"batchingRules":[{}]`, `"testBranchPrefix":"mq-temp/"`, `"testBranchPrefix":"no-slash"`, `"testBranchPrefix":""`,
		`"notReadyTimeoutHours":2562048`, `"testingTimeoutMinutes":10081`, `"batchingMaxWaitTimeMinutes":1441`,
		`"pendingFailureDepth":1001`, `"batchingMinSize":1001`, `"bisectionConcurrency":1001`,
		`"allowedBotSubmitters":["ci-user"]`} {
		h := newHarness(t)
		r := h.post("createQueue", body(extra))
		wantError(t, r, http.StatusBadRequest)
		if n := len(h.svc.calls().createUpdates); n != 0 {
			t.Errorf("%s: service reached", extra)
		}
	}
}
