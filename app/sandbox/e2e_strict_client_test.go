package sandbox

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// strictKeys are keys a strict client of the hosted API (a public MCP
// server's response schemas) requires present and not null, beyond those
// the session test checks.
var (
	strictQueueKeys     = []string{"allowedBotSubmitters", "batchingRules", "testBranchConstructionMode", "extensionEnabled", "notReadyTimeoutHours"}
	strictSubmittedKeys = []string{"forceEnqueued", "isCurrentlySubmittedToQueue", "usedDefaultPriorityName", "readiness"}
	strictDetailsKeys   = []string{"requiredStatuses", "requiredStatusesSource", "testBranch", "testBranchSha", "createdAt", "status",
		"checkSuites", "statusChecks", "dependentPrs", "testedPullRequests"}
)

func wantPresent(t *testing.T, where string, m map[string]any, keys []string) {
	t.Helper()
	for _, k := range keys {
		if v, ok := m[k]; !ok || v == nil {
			t.Errorf("%s: %q is %v (present %v), a strict client requires a value", where, k, v, ok)
		}
	}
}

// The fields newer clients require, against the real stack: settings
// stored across a restart, and verifiedByTestRun and
// requiredStatusesSource derived from the runs that decided entries.
func TestAPIStrictClientFields(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.mustPost("createQueue", sessionBody(map[string]any{"testBranchConstructionMode": "RENAME_TEMP_BRANCH",
		"allowedBotSubmitters": []string{"renovate[bot]", "Release-App[bot]"}, "batchingRules": []any{}}))
	h.sessionStatus("updateQueue", sessionBody(map[string]any{"batchingRules": []any{map[string]any{"label": "deps"}}}), 400)
	h.sessionStatus("updateQueue", sessionBody(map[string]any{"testBranchConstructionMode": "push"}), 400)

	if err := h.env.StopApp(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if err := h.env.RestartApp(context.Background()); err != nil {
		t.Fatalf("restart: %v", err)
	}
	q := h.sessionObject("getQueue", sessionBody(nil))
	wantPresent(t, "getQueue", q, strictQueueKeys)
	for k, want := range map[string]string{"allowedBotSubmitters": "[renovate[bot] Release-App[bot]]", "batchingRules": "[]",
		"testBranchConstructionMode": "rename_temp_branch", "testBranchPrefix": "mq-merge/", "requiredStatuses": "<nil>"} {
		if got := fmt.Sprint(q[k]); got != want {
			t.Errorf("after a restart %s = %s, want %s", k, got, want)
		}
	}

	// Branch protection decides: the run says so, and decided the merge.
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	h.submit(p1)
	h.waitState(p1, "merged")
	s := h.sessionObject("getSubmittedPullRequest", sessionBody(map[string]any{"pr": map[string]any{"number": p1}}))
	wantPresent(t, "getSubmittedPullRequest", s, strictSubmittedKeys)
	if s["forceEnqueued"] != false || s["usedDefaultPriorityName"] != "medium" {
		t.Errorf("forceEnqueued %v usedDefaultPriorityName %v, want false medium", s["forceEnqueued"], s["usedDefaultPriorityName"])
	}
	run, ok := s["verifiedByTestRun"].(string)
	if !ok || run == "" {
		t.Fatalf("a PR merged by its passing run: verifiedByTestRun %v", s["verifiedByTestRun"])
	}
	d := h.sessionObject("getMergeQueueTestingDetails", sessionBody(map[string]any{"testRunId": run}))
	wantPresent(t, "getMergeQueueTestingDetails", d, strictDetailsKeys)
	if d["status"] != "succeeded" || d["requiredStatusesSource"] != "branch_protection" || fmt.Sprint(d["requiredStatuses"]) != "[ci/test]" {
		t.Errorf("run %s: status %v source %v required %v, want succeeded branch_protection [ci/test]",
			run, d["status"], d["requiredStatusesSource"], d["requiredStatuses"])
	}
	if !strings.HasSuffix(fmt.Sprint(d["testBranch"]), "/"+run) {
		t.Errorf("testBranch %v does not end in the run id %s", d["testBranch"], run)
	}

	// The queue's own statuses; a failing PR names the run that failed it.
	h.sessionObject("updateQueue", sessionBody(map[string]any{"requiredStatuses": []string{"ci/test"}}))
	p2 := h.openPR("two", map[string]string{"FAIL": "x\n"})
	h.mustPost("submitPullRequest", sessionBody(map[string]any{"pr": map[string]any{"number": p2}, "priority": "high"}))
	h.waitState(p2, "failed")
	s = h.sessionObject("getSubmittedPullRequest", sessionBody(map[string]any{"pr": map[string]any{"number": p2}}))
	wantPresent(t, "getSubmittedPullRequest (failed)", s, strictSubmittedKeys)
	if s["usedDefaultPriorityName"] != "" {
		t.Errorf("a priority was given: usedDefaultPriorityName %v, want \"\"", s["usedDefaultPriorityName"])
	}
	run, ok = s["verifiedByTestRun"].(string)
	if !ok || run == "" {
		t.Fatalf("a PR failed by its run: verifiedByTestRun %v (stateReason %v)", s["verifiedByTestRun"], s["stateReason"])
	}
	d = h.sessionObject("getMergeQueueTestingDetails", sessionBody(map[string]any{"testRunId": run}))
	if d["status"] != "failed" || d["requiredStatusesSource"] != "merge_instance" {
		t.Errorf("run %s: status %v source %v, want failed merge_instance", run, d["status"], d["requiredStatusesSource"])
	}
}

// The two flows of the Terraform provider for this API that failed with
// "Provider produced inconsistent result after apply", against the real
// stack: the provider sends its whole configuration on every apply and
// requires each attribute of the answer to be what it planned (a computed
// attribute not in the configuration keeps the value it read). SPEC §7:
// bisectionConcurrency's default is fixed at creation (stored, so across a
// restart too), and updateQueue answers the state the queue returns to
// while getQueue shows switching_modes.
func TestAPITerraformProviderFlows(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	config := map[string]any{"concurrency": 2, "mode": "single", "state": "running"}
	h.mustPost("createQueue", sessionBody(config))
	prior := h.sessionObject("getQueue", sessionBody(nil))
	delete(prior, "enqueuedPullRequests")
	delete(prior, "autoTuning") // computed: read-only, in getQueue alone

	// apply sends the configuration changed by change and checks the
	// answer against the plan: the prior state changed by change.
	apply := func(change map[string]any) {
		t.Helper()
		for k, v := range change {
			config[k] = v
			prior[k] = fmt.Sprint(v)
		}
		answer := h.sessionObject("updateQueue", sessionBody(config))
		for k, planned := range prior {
			if got := fmt.Sprint(answer[k]); got != fmt.Sprint(planned) {
				t.Errorf("Provider produced inconsistent result after apply: .%s: was %v, but now %s", k, planned, got)
			}
		}
	}

	// concurrency changes; bisection_concurrency is not in the configuration.
	apply(map[string]any{"concurrency": 3})
	if err := h.env.StopApp(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if err := h.env.RestartApp(context.Background()); err != nil {
		t.Fatalf("restart: %v", err)
	}
	if q := h.sessionObject("getQueue", sessionBody(nil)); fmt.Sprint(q["bisectionConcurrency"]) != "2" || fmt.Sprint(q["concurrency"]) != "3" {
		t.Errorf("after a restart bisectionConcurrency %v concurrency %v, want 2 3", q["bisectionConcurrency"], q["concurrency"])
	}

	// mode changes while a run tests.
	h.env.Fake.SetCIHold(true)
	pr := h.openPR("one", map[string]string{"one.txt": "1\n"})
	h.submit(pr)
	h.waitState(pr, "testing")
	apply(map[string]any{"mode": "parallel"})
	if q := h.sessionObject("getQueue", sessionBody(nil)); q["state"] != "switching_modes" || q["mode"] != "parallel" {
		t.Errorf("while the run tests: state %v mode %v, want switching_modes parallel", q["state"], q["mode"])
	}
	h.env.Fake.SetCIHold(false)
	h.env.Fake.ReleaseCI()
	h.waitState(pr, "merged")
	h.waitFor("the queue to switch modes", func() bool {
		q := h.sessionObject("getQueue", sessionBody(nil))
		return q["state"] == "running" && q["mode"] == "parallel"
	}, nil)
}
