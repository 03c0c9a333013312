package api

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

func TestCreateQueue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		extra []string
		want  func(s *queue.Settings)
	}{
		{"defaults", nil, func(*queue.Settings) {}},
		{"mode any case", []string{`"mode":"PARALLEL"`}, func(s *queue.Settings) { s.Mode = queue.ModeParallel }},
		{"concurrency", []string{`"concurrency":3`}, func(s *queue.Settings) { s.Concurrency = 3 }},
		{"null optionals", []string{`"mode":null`, `"concurrency":null`}, func(*queue.Settings) {}},
		{"unknown fields ignored", []string{`"color":"blue"`, `"nested":{"a":[1,2]}`}, func(*queue.Settings) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			wantEmptyObject(t, h.post("createQueue", body(tt.extra...)))
			calls := h.svc.calls()
			if len(calls.creates) != 1 {
				t.Fatalf("CreateQueue called %d times, want 1", len(calls.creates))
			}
			want := queue.DefaultSettings()
			tt.want(&want)
			if !reflect.DeepEqual(calls.creates[0], want) {
				t.Errorf("settings = %+v, want %+v", calls.creates[0], want)
			}
			if calls.createKeys[0] != testKey {
				t.Errorf("key = %v, want %v", calls.createKeys[0], testKey)
			}
		})
	}
}

func TestCreateQueueErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		svcErr  error
		status  int
		want    string
		reaches bool // the service is called
	}{
		{"duplicate", body(), fmt.Errorf("failed to insert: %w", queue.ErrExists), http.StatusConflict, "already exists", true},
		{"invalid settings", body(), queue.Inputf("concurrency too high"), http.StatusBadRequest, "concurrency too high", true},
		{"service failure", body(), errors.New("disk full"), http.StatusInternalServerError, "internal error", true},
		{"unknown mode", body(`"mode":"serial"`), nil, http.StatusBadRequest, `"serial" is not one of single, parallel`, false},
		{"mode wrong type", body(`"mode":1`), nil, http.StatusBadRequest, "mode", false},
		{"concurrency zero", body(`"concurrency":0`), nil, http.StatusBadRequest, "concurrency", false},
		{"concurrency negative", body(`"concurrency":-2`), nil, http.StatusBadRequest, "concurrency", false},
		{"concurrency string", body(`"concurrency":"2"`), nil, http.StatusBadRequest, "concurrency", false},
		{"concurrency fraction", body(`"concurrency":1.5`), nil, http.StatusBadRequest, "concurrency", false},
		{"missing repo", `{"targetBranch":"main"}`, nil, http.StatusBadRequest, "repo.host is required", false},
		{"missing owner", `{"repo":{"host":"github.com","name":"w"},"targetBranch":"main"}`, nil, http.StatusBadRequest, "repo.owner is required", false},
		{"missing name", `{"repo":{"host":"github.com","owner":"o"},"targetBranch":"main"}`, nil, http.StatusBadRequest, "repo.name is required", false},
		{"missing branch", `{"repo":{"host":"github.com","owner":"o","name":"w"}}`, nil, http.StatusBadRequest, "targetBranch is required", false},
		{"empty branch", `{"repo":{"host":"github.com","owner":"o","name":"w"},"targetBranch":""}`, nil, http.StatusBadRequest, "targetBranch is required", false},
		{"repo wrong type", `{"repo":"o/w","targetBranch":"main"}`, nil, http.StatusBadRequest, "repo", false},
		{"owner wrong type", `{"repo":{"host":"github.com","owner":7,"name":"w"},"targetBranch":"main"}`, nil, http.StatusBadRequest, "repo.owner", false},
		{"other host", `{"repo":{"host":"gitlab.com","owner":"o","name":"w"},"targetBranch":"main"}`, nil, http.StatusNotFound, "gitlab.com", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configure(func(f *fakeService) { f.createErr = tt.svcErr })
			r := h.post("createQueue", tt.body)
			wantError(t, r, tt.status, tt.want)
			if got := len(h.svc.calls().creates) > 0; got != tt.reaches {
				t.Errorf("service reached = %v, want %v", got, tt.reaches)
			}
		})
	}
}

// queueShape is seed §2.3 plus SPEC §7: every field, always present.
var queueShape = map[string]string{
	"state":                           "string",
	"branch":                          "string",
	"concurrency":                     "integer",
	"testingTimeoutMinutes":           "integer",
	"mode":                            "string",
	"canOptimisticallyMerge":          "boolean",
	"pendingFailureDepth":             "integer",
	"batch":                           "boolean",
	"batchingMaxWaitTimeMinutes":      "integer",
	"batchingMinSize":                 "integer",
	"createPrsForTestingBranches":     "boolean",
	"commentsEnabled":                 "boolean",
	"commandsEnabled":                 "boolean",
	"statusCheckEnabled":              "boolean",
	"bisectionConcurrency":            "integer",
	"requiredStatuses":                "array|null",
	"directMergeMode":                 "string",
	"optimizationMode":                "string",
	"mergeMethod":                     "string",
	"enqueuedPullRequests":            "array",
	"enqueueingLabel":                 "string",
	"labelCommandsEnabled":            "boolean",
	"stateLabelsEnabled":              "boolean",
	"extensionEnabled":                "boolean",
	"batchingMaxSize":                 "integer",
	"notReadyTimeoutHours":            "integer",
	"bisectionParts":                  "integer",
	"allowedBotSubmitters":            "array",
	"batchingRules":                   "array",
	"testBranchConstructionMode":      "string",
	"testBranchPrefix":                "string",
	"isolationRuns":                   "boolean",
	"checksStartTimeoutMinutes":       "integer",
	"testingTimeoutFromHistory":       "boolean",
	"stallAlertMinutes":               "integer",
	"checkRetries":                    "integer",
	"checkRetryBudgetPercent":         "integer",
	"fastForwardLanding":              "boolean",
	"autoTune":                        "boolean",
	"autoTuneMaxRuns":                 "integer",
	"autoTuneMaxRunsPerHundredMerges": "integer",
	"autoTuning":                      "object",
}

// enqueuedShape is seed §2.4.
var enqueuedShape = map[string]string{
	"id":                      "string",
	"state":                   "string",
	"stateChangedAt":          "string",
	"priorityValue":           "integer",
	"priorityName":            "string",
	"usedDefaultPriorityName": "string",
	"skipTheLine":             "boolean",
	"noBatch":                 "boolean",
	"prNumber":                "integer",
	"prTitle":                 "string",
	"prSha":                   "string",
	"prBaseBranch":            "string",
	"prAuthor":                "string",
}

func testEntry(n int, state queue.EntryState, prio int, name string, usedDefault bool) *queue.Entry {
	return &queue.Entry{
		ID: fmt.Sprintf("entry-%d", n), PRNumber: n, PRSHA: fmt.Sprintf("sha%d", n),
		PR:             queue.PRFacts{Title: fmt.Sprintf("PR %d", n), Author: "alice", BaseBranch: "main"},
		State:          state,
		StateChangedAt: time.Date(2026, 7, 23, 1, 32, 50, 123456789, time.FixedZone("x", 3600)),
		PriorityValue:  prio, PriorityName: name, UsedDefaultPriorityName: usedDefault,
	}
}

func TestGetQueueShape(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	s := queue.DefaultSettings()
	s.Concurrency = 3
	s.BatchingMinSize = 6
	h.svc.configure(func(f *fakeService) {
		f.getQueue = &queue.Queue{ID: 7, Key: testKey, State: queue.QueuePaused, Settings: s}
		f.getEntries = []*queue.Entry{
			testEntry(12, queue.StateTesting, 0, "urgent", false),
			testEntry(13, queue.StatePending, 100, "medium", true),
			testEntry(14, queue.StateNotReady, 100, "medium", true), // never listed
		}
	})
	m := decodeObject(t, h.post("getQueue", body()))
	wantShape(t, "queue", m, queueShape)

	wantValues := map[string]any{
		"state": "paused", "branch": "main", "mode": "single", "mergeMethod": "squash",
		"directMergeMode": "off", "optimizationMode": "off", "enqueueingLabel": "merge-queue",
		"requiredStatuses": nil,
	}
	for k, v := range wantValues {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	for k, want := range map[string]string{"concurrency": "3", "bisectionConcurrency": "3", "batchingMinSize": "6", "batchingMaxSize": "6", "testingTimeoutMinutes": "60"} {
		if got := fmt.Sprint(m[k]); got != want {
			t.Errorf("%s = %s, want %s (effective value)", k, got, want)
		}
	}

	prs := m["enqueuedPullRequests"].([]any)
	if len(prs) != 2 {
		t.Fatalf("enqueuedPullRequests has %d entries, want 2 (not_ready excluded)", len(prs))
	}
	for i, p := range prs {
		wantShape(t, fmt.Sprintf("enqueuedPullRequests[%d]", i), p.(map[string]any), enqueuedShape)
	}
	first, second := prs[0].(map[string]any), prs[1].(map[string]any)
	checks := []struct {
		got  any
		want string
	}{
		{first["id"], "entry-12"},
		{first["state"], "testing"},
		{first["stateChangedAt"], "2026-07-23T00:32:50.123Z"},
		{first["skipTheLine"], "true"},
		{first["usedDefaultPriorityName"], ""}, // a priority was given: no default applied
		{first["prNumber"], "12"},
		{first["prSha"], "sha12"},
		{first["prTitle"], "PR 12"},
		{first["prAuthor"], "alice"},
		{first["prBaseBranch"], "main"},
		{second["skipTheLine"], "false"},
		{second["priorityValue"], "100"},
		{second["usedDefaultPriorityName"], "medium"},
	}
	for i, c := range checks {
		if got := fmt.Sprint(c.got); got != c.want {
			t.Errorf("check %d: got %s, want %s", i, got, c.want)
		}
	}
}

func TestGetQueueRequiredStatuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		set  []string
		want string
	}{
		{"null means branch protection", nil, `"requiredStatuses":null`},
		{"empty means explicitly none", []string{}, `"requiredStatuses":[]`},
		{"listed", []string{"ci/build", "lint"}, `"requiredStatuses":["ci/build","lint"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			s := queue.DefaultSettings()
			s.RequiredStatuses = tt.set
			h.svc.configure(func(f *fakeService) {
				f.getQueue = &queue.Queue{Key: testKey, State: queue.QueueRunning, Settings: s}
			})
			r := h.post("getQueue", body())
			if r.status != http.StatusOK || !strings.Contains(r.body, tt.want) {
				t.Fatalf("got %d %s, want it to contain %s", r.status, r.body, tt.want)
			}
			if !strings.Contains(r.body, `"enqueuedPullRequests":[]`) {
				t.Errorf("enqueuedPullRequests is not [] without entries: %s", r.body)
			}
		})
	}
}

func TestGetQueueErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		svcErr error
		status int
		want   string
	}{
		{"unknown queue", body(), fmt.Errorf("failed to load: %w", queue.ErrNotFound), http.StatusNotFound, `no queue for branch "main" of octo/widgets`},
		{"unknown host", `{"repo":{"host":"ghe.example.com","owner":"octo","name":"widgets"},"targetBranch":"main"}`, nil, http.StatusNotFound, "ghe.example.com"},
		{"service failure", body(), errors.New("sql: connection refused at 10.0.0.1"), http.StatusInternalServerError, "internal error"},
		{"malformed JSON", `{"repo":`, nil, http.StatusBadRequest, "malformed JSON"},
		{"empty body", ``, nil, http.StatusBadRequest, "empty request body"},
		{"array body", `[1,2]`, nil, http.StatusBadRequest, "JSON object"},
		{"trailing garbage", body() + `x`, nil, http.StatusBadRequest, "malformed JSON"},
		{"branch wrong type", `{"repo":{"host":"github.com","owner":"o","name":"w"},"targetBranch":["main"]}`, nil, http.StatusBadRequest, "targetBranch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configure(func(f *fakeService) { f.getErr = tt.svcErr })
			r := h.post("getQueue", tt.body)
			wantError(t, r, tt.status, tt.want)
			if tt.status == http.StatusInternalServerError && strings.Contains(r.body, "10.0.0.1") {
				t.Errorf("500 body leaks details: %q", r.body)
			}
		})
	}
}

func TestHostMatchesCaseInsensitively(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.svc.configure(func(f *fakeService) {
		f.getQueue = &queue.Queue{Key: testKey, State: queue.QueueRunning, Settings: queue.DefaultSettings()}
	})
	r := h.post("getQueue", `{"repo":{"host":"GitHub.COM","owner":"octo","name":"widgets"},"targetBranch":"main"}`)
	decodeObject(t, r)
	if got := h.svc.calls().getKeys[0]; got != testKey {
		t.Errorf("key = %v, want %v (configured host spelling)", got, testKey)
	}
}
