package api

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// A strict client of the hosted API: the response schemas of a public MCP
// server for it (RigelBuild/trunk-mq-mcp, src/types.ts, zod objects),
// which rejects a response lacking any of these keys or holding null
// where it expects a value. Numbers must also be integers here (our
// rule). "x|null" is the one nullable key, verifiedByTestRun.
var (
	strictEntry = map[string]string{
		"id": "string", "state": "string", "stateChangedAt": "string", "priorityValue": "integer",
		"priorityName": "string", "usedDefaultPriorityName": "string", "skipTheLine": "boolean",
		"noBatch": "boolean", "prTitle": "string", "prNumber": "integer", "prSha": "string",
		"prBaseBranch": "string", "prAuthor": "string",
	}
	strictQueue = map[string]string{
		"state": "string", "branch": "string", "concurrency": "integer", "testingTimeoutMinutes": "integer",
		"mode": "string", "canOptimisticallyMerge": "boolean", "pendingFailureDepth": "integer", "batch": "boolean",
		"batchingMaxWaitTimeMinutes": "integer", "batchingMinSize": "integer", "createPrsForTestingBranches": "boolean",
		"commentsEnabled": "boolean", "commandsEnabled": "boolean", "statusCheckEnabled": "boolean",
		"extensionEnabled": "boolean", "bisectionConcurrency": "integer", "requiredStatuses": "array",
		"allowedBotSubmitters": "array", "batchingRules": "array", "directMergeMode": "string",
		"optimizationMode": "string", "mergeMethod": "string", "testBranchConstructionMode": "string",
		"enqueueingLabel": "string", "labelCommandsEnabled": "boolean", "stateLabelsEnabled": "boolean",
		"notReadyTimeoutHours": "integer", "enqueuedPullRequests": "array",
	}
	strictSubmitted = func() map[string]string {
		m := map[string]string{"readiness": "object", "forceEnqueued": "boolean",
			"isCurrentlySubmittedToQueue": "boolean", "verifiedByTestRun": "string|null"}
		for k, v := range strictEntry {
			m[k] = v
		}
		return m
	}()
	strictReadiness = map[string]string{"hasImpactedTargets": "boolean", "requiresImpactedTargets": "boolean",
		"doesBaseBranchMatch": "boolean", "gitHubMergeability": "string"}
	strictDetails = map[string]string{
		"requiredStatuses": "array", "requiredStatusesSource": "string", "testBranch": "string",
		"testBranchSha": "string", "createdAt": "string", "status": "string", "checkSuites": "array",
		"statusChecks": "array", "dependentPrs": "array", "testedPullRequests": "array",
	}
	strictCheckSuite  = map[string]string{"checkRuns": "array"}
	strictStatusCheck = map[string]string{"context": "string", "url": "string", "state": "string"}
	strictTestedPR    = map[string]string{"prNumber": "integer", "prUrl": "string", "title": "string"}
)

// Enums such a client parses (lower case).
var (
	strictPRStates    = []string{"not_ready", "pending", "testing", "tests_passed", "merged", "failed", "cancelled", "pending_failure"}
	strictQueueStates = []string{"running", "paused", "draining", "switching_modes"}
)

// wantStrict checks that obj has every key of schema, of its JSON type and
// not null (unless the type allows null); other keys are allowed, as the
// client strips them. except names keys checked by the caller instead.
func wantStrict(t *testing.T, where string, obj map[string]any, schema map[string]string, except ...string) {
	t.Helper()
	for k, want := range schema {
		if slices.Contains(except, k) {
			continue
		}
		v, ok := obj[k]
		if !ok {
			t.Errorf("%s: a strict client requires %q, which is missing", where, k)
			continue
		}
		if got := jsonType(v); !strings.Contains("|"+want+"|", "|"+got+"|") {
			t.Errorf("%s: %q is %s (%v), a strict client requires %s", where, k, got, v, want)
		}
	}
}

// wantEnum checks that obj[key] is one of allowed, exactly (lower case).
func wantEnum(t *testing.T, where string, obj map[string]any, key string, allowed []string) {
	t.Helper()
	if s, ok := obj[key].(string); !ok || !slices.Contains(allowed, s) {
		t.Errorf("%s: %q is %v, want one of %v", where, key, obj[key], allowed)
	}
}

// elements returns obj[key] as a list of objects.
func elements(t *testing.T, where string, obj map[string]any, key string) []map[string]any {
	t.Helper()
	list, ok := obj[key].([]any)
	if !ok {
		t.Fatalf("%s: %q is %v, want an array", where, key, obj[key])
	}
	out := make([]map[string]any, len(list))
	for i, v := range list {
		if out[i], ok = v.(map[string]any); !ok {
			t.Fatalf("%s: %s[%d] is %v, want an object", where, key, i, v)
		}
	}
	return out
}

func TestStrictClientGetQueue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		required []string
		want     string // requiredStatuses as written
	}{
		{"queue's required statuses", []string{"ci/test"}, `["ci/test"]`},
		{"explicitly none", []string{}, `[]`},
		// The one deliberate exception: null means "branch protection
		// decides" to the Terraform provider, which tells it from [].
		{"branch protection", nil, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			s := queue.DefaultSettings()
			s.RequiredStatuses = tt.required
			h.svc.configure(func(f *fakeService) {
				f.getQueue = &queue.Queue{Key: testKey, State: queue.QueueDraining, Settings: s}
				f.getEntries = []*queue.Entry{
					testEntry(12, queue.StateTesting, 10, "high", false),
					testEntry(13, queue.StatePendingFailure, 100, "medium", true),
				}
			})
			r := h.post("getQueue", body())
			m := decodeObject(t, r)
			wantStrict(t, "getQueue", m, strictQueue, "requiredStatuses")
			wantEnum(t, "getQueue", m, "state", strictQueueStates)
			if !strings.Contains(r.body, `"requiredStatuses":`+tt.want+`,`) {
				t.Errorf("requiredStatuses is not %s: %s", tt.want, r.body)
			}
			for k, want := range map[string]string{"allowedBotSubmitters": "[]", "batchingRules": "[]",
				"testBranchConstructionMode": "rename_temp_branch", "testBranchPrefix": "mq-merge/"} {
				if got := fmt.Sprint(m[k]); got != want {
					t.Errorf("default %s = %s, want %s", k, got, want)
				}
			}
			entries := elements(t, "getQueue", m, "enqueuedPullRequests")
			if len(entries) != 2 {
				t.Fatalf("%d entries, want 2", len(entries))
			}
			for i, e := range entries {
				where := fmt.Sprintf("enqueuedPullRequests[%d]", i)
				wantStrict(t, where, e, strictEntry)
				wantEnum(t, where, e, "state", strictPRStates)
			}
			if entries[0]["usedDefaultPriorityName"] != "" || entries[1]["usedDefaultPriorityName"] != "medium" {
				t.Errorf("usedDefaultPriorityName = %q and %q, want \"\" (priority given) and \"medium\" (default applied)",
					entries[0]["usedDefaultPriorityName"], entries[1]["usedDefaultPriorityName"])
			}
		})
	}
}

func TestStrictClientUpdateQueueEchoesTheNewSettings(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// The fake applies the update to the defaults, as the service does.
	r := h.post("updateQueue", body(`"testBranchConstructionMode":"Rename_Temp_Branch"`,
		`"allowedBotSubmitters":["renovate[bot]","Dependabot[bot]","release-app[bot]"]`, `"batchingRules":[]`,
		`"testBranchPrefix":"ci/merge-queue/"`, `"requiredStatuses":["ci/test"]`))
	m := decodeObject(t, r)
	wantStrict(t, "updateQueue", m, strictQueue, "enqueuedPullRequests")
	for _, want := range []string{`"allowedBotSubmitters":["renovate[bot]","Dependabot[bot]","release-app[bot]"]`,
		`"batchingRules":[]`, `"testBranchConstructionMode":"rename_temp_branch"`, `"testBranchPrefix":"ci/merge-queue/"`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("updateQueue does not echo %s: %s", want, r.body)
		}
	}
	// Cleared again: [] reads back as [], never null.
	r = h.post("updateQueue", body(`"allowedBotSubmitters":[]`))
	if m := decodeObject(t, r); !strings.Contains(r.body, `"allowedBotSubmitters":[]`) {
		t.Errorf("cleared bots read back as %v", m["allowedBotSubmitters"])
	}
}

func TestStrictClientGetSubmittedPullRequest(t *testing.T) {
	t.Parallel()
	inTest := testEntry(9, queue.StateTesting, 100, "medium", true)
	inTest.RunID = "run-1"
	failed := testEntry(9, queue.StateFailed, 0, "urgent", false)
	failed.Direct = true
	tests := []struct {
		name     string
		sub      *queue.SubmittedPR
		verified any
		forced   bool
	}{
		{"testing: no run decided it yet", &queue.SubmittedPR{Entry: inTest, TestRunID: "run-1", QueuePosition: 1,
			IsCurrentlySubmitted: true}, nil, false},
		{"failed by its run, force-enqueued", &queue.SubmittedPR{Entry: failed, VerifiedByTestRun: "run-2"}, "run-2", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configure(func(f *fakeService) { f.submitted = tt.sub })
			m := decodeObject(t, h.post("getSubmittedPullRequest", body(`"pr":{"number":9}`)))
			wantStrict(t, "getSubmittedPullRequest", m, strictSubmitted)
			wantEnum(t, "getSubmittedPullRequest", m, "state", strictPRStates)
			wantStrict(t, "readiness", m["readiness"].(map[string]any), strictReadiness)
			if m["verifiedByTestRun"] != tt.verified || m["forceEnqueued"] != tt.forced {
				t.Errorf("verifiedByTestRun %v forceEnqueued %v, want %v %v", m["verifiedByTestRun"], m["forceEnqueued"], tt.verified, tt.forced)
			}
		})
	}
}

func TestStrictClientGetMergeQueueTestingDetails(t *testing.T) {
	t.Parallel()
	for _, d := range []*readside.TestingDetails{detailsFixture(queue.RunFailed), func() *readside.TestingDetails {
		d := detailsFixture(queue.RunBuilding) // nothing reported yet
		d.Checks, d.DependentPRs, d.Run.RequiredChecks, d.Run.RequiredSource = nil, nil, nil, ""
		return d
	}()} {
		t.Run(string(d.Run.Status), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configureMore(func(m *moreFakes) { m.details = d })
			m := decodeObject(t, h.post("getMergeQueueTestingDetails", body(`"testRunId":"3f2c"`)))
			wantStrict(t, "details", m, strictDetails)
			for i, s := range elements(t, "details", m, "checkSuites") {
				wantStrict(t, fmt.Sprintf("checkSuites[%d]", i), s, strictCheckSuite)
			}
			for i, s := range elements(t, "details", m, "statusChecks") {
				wantStrict(t, fmt.Sprintf("statusChecks[%d]", i), s, strictStatusCheck)
			}
			for i, p := range elements(t, "details", m, "testedPullRequests") {
				wantStrict(t, fmt.Sprintf("testedPullRequests[%d]", i), p, strictTestedPR)
			}
		})
	}
}

// The strict schemas must stay what the response types promise: a key a
// strict client requires is always in the shapes the other tests check.
func TestStrictSchemasAreInTheShapes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name           string
		strict, shapes map[string]string
	}{
		{"queue", strictQueue, queueShape},
		{"entry", strictEntry, enqueuedShape},
		{"submitted", strictSubmitted, submittedShape},
		{"details", strictDetails, detailsShape},
	} {
		for k := range c.strict {
			if _, ok := c.shapes[k]; !ok {
				t.Errorf("%s: %q is required by a strict client but missing from the shape", c.name, k)
			}
		}
	}
}

// The Terraform provider for this API (v1.0.4 and v0.1.3, unmodified)
// reads the queue after create, sends its whole configuration on every
// apply, and then requires each attribute of updateQueue's answer to be
// what it planned: the configured value, or, for a computed attribute not
// in the configuration, the value it read before. Anything else fails the
// apply with "Provider produced inconsistent result after apply". Two
// flows did: changing concurrency without bisection_concurrency in the
// configuration (".bisection_concurrency: was 2, but now 3": its default
// followed concurrency), and changing mode while a run tests (".state: was
// "running", but now "switching_modes""). SPEC §7: the default is fixed
// at creation, and updateQueue answers the state the queue returns to.
func TestStrictClientTerraformFlows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		config     map[string]any // created with, and sent on every apply
		change     map[string]any // the configuration's change
		oldRow     bool           // the queue was stored before bisectionConcurrency was fixed at creation
		runTesting bool
		wantRead   map[string]string // getQueue after the apply
	}{
		{"concurrency changed, bisection_concurrency not configured", map[string]any{"concurrency": 2, "mode": "single"},
			map[string]any{"concurrency": 3}, false, false, map[string]string{"concurrency": "3", "bisectionConcurrency": "2"}},
		{"concurrency changed on a queue stored before", map[string]any{"concurrency": 2, "mode": "single"},
			map[string]any{"concurrency": 3}, true, false, map[string]string{"concurrency": "3", "bisectionConcurrency": "2"}},
		{"mode changed while a run tests", map[string]any{"mode": "single", "state": "running", "concurrency": 2},
			map[string]any{"mode": "parallel"}, false, true, map[string]string{"state": `"switching_modes"`, "mode": `"parallel"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newLiveHarness(t)
			if tt.oldRow {
				s := queue.DefaultSettings()
				s.Concurrency = tt.config["concurrency"].(int) // bisectionConcurrency unset: it followed concurrency
				q := &queue.Queue{Key: testKey, State: queue.QueueRunning, Settings: s, CreatedAt: testNow, UpdatedAt: testNow, NextSeq: 1}
				if err := h.store.CreateQueue(context.Background(), q); err != nil {
					t.Fatal(err)
				}
			} else {
				wantEmptyObject(t, h.post("createQueue", branchBody(t, "main", tt.config)))
			}
			prior, _ := rawFields(t, h.post("getQueue", branchBody(t, "main", nil)))
			if tt.runTesting {
				h.startRun("main")
			}

			sent := map[string]any{}
			planned := map[string]string{}
			for k, v := range prior {
				planned[k] = string(v)
			}
			delete(planned, "enqueuedPullRequests")
			delete(planned, "autoTuning") // computed: read-only, in getQueue alone
			for _, m := range []map[string]any{tt.config, tt.change} {
				for k, v := range m {
					sent[k], planned[k] = v, jsonOf(t, v)
				}
			}
			answer, _ := rawFields(t, h.post("updateQueue", branchBody(t, "main", sent)))
			for k, want := range planned {
				if got := string(answer[k]); got != want {
					t.Errorf("Provider produced inconsistent result after apply: .%s: was %s, but now %s", k, want, got)
				}
			}
			read, _ := rawFields(t, h.post("getQueue", branchBody(t, "main", nil)))
			for k, want := range tt.wantRead {
				if got := string(read[k]); got != want {
					t.Errorf("getQueue after the apply: %s = %s, want %s", k, got, want)
				}
			}
		})
	}
}
