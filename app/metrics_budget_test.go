package app

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mergequeue/mq/githubx"
)

// Budget grants, waits by class, window use and rate-limit refusals with
// their pauses are exposed, labelled by class, kind and limit only.
func TestGitHubBudgetMetrics(t *testing.T) {
	gm := newGitHubMetrics()
	reg := prometheus.NewRegistry()
	gm.register(reg)
	var obs githubx.BudgetObserver = gm
	obs.ObserveBudgetWait(githubx.BudgetWait{Class: githubx.ClassMerge, Write: true})
	obs.ObserveBudgetWait(githubx.BudgetWait{Class: githubx.ClassSurface, Write: true, Waited: 3 * time.Second, Reason: githubx.WaitWrites})
	obs.ObserveBudgetWait(githubx.BudgetWait{Class: githubx.ClassSurface, Write: true, Waited: 2 * time.Second, Reason: githubx.WaitPause})
	obs.ObserveBudgetWait(githubx.BudgetWait{Class: githubx.ClassProgress, Waited: time.Second, Reason: githubx.WaitPoints})
	obs.ObserveBudgetUse(githubx.BudgetUse{InFlight: 2, Points: 40, WritesPerMinute: 7, WritesPerHour: 70, Budget: githubx.DefaultBudget()})
	obs.ObserveLimitPause(githubx.LimitPause{Kind: githubx.LimitSecondary, Status: 403, Pause: time.Minute, Strikes: 1})
	obs.ObserveLimitPause(githubx.LimitPause{Kind: githubx.LimitSecondary, Status: 429, Pause: 2 * time.Minute, Strikes: 2})
	fams := gather(t, reg)
	wantValue(t, fams, "mq_github_budget_wait_seconds", map[string]string{"class": "surface", "kind": "write"}, 2)
	wantValue(t, fams, "mq_github_budget_wait_seconds", map[string]string{"class": "merge", "kind": "write"}, 1)
	wantValue(t, fams, "mq_github_budget_waits_total", map[string]string{"class": "surface", "kind": "write", "reason": "writes"}, 1)
	wantValue(t, fams, "mq_github_budget_waits_total", map[string]string{"class": "surface", "kind": "write", "reason": "pause"}, 1)
	wantValue(t, fams, "mq_github_budget_waits_total", map[string]string{"class": "progress", "kind": "read", "reason": "points"}, 1)
	if _, ok := value(fams, "mq_github_budget_waits_total", map[string]string{"class": "merge", "kind": "write", "reason": ""}); ok {
		t.Error("a grant made at once counted as a wait")
	}
	wantValue(t, fams, "mq_github_budget_used", map[string]string{"limit": "writes_per_hour"}, 70)
	wantValue(t, fams, "mq_github_budget_used", map[string]string{"limit": "concurrent_requests"}, 2)
	wantValue(t, fams, "mq_github_budget_limit", map[string]string{"limit": "writes_per_minute"}, 80)
	wantValue(t, fams, "mq_github_budget_limit", map[string]string{"limit": "points_per_minute"}, 900)
	wantValue(t, fams, "mq_github_rate_limit_refusals_total", map[string]string{"kind": "secondary", "status": "429"}, 1)
	wantValue(t, fams, "mq_github_rate_limit_pause_seconds_total", map[string]string{"kind": "secondary"}, 180)
}
