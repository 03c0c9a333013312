package sim

import (
	"testing"

	"github.com/mergequeue/mq/queue"
)

// TestWorldChargesGitBuilds: with SetGitBuilds a build costs no API
// request: a fetch (two git requests) only for commits new to the clone,
// a push (two) when it publishes, nothing for a probe of known commits;
// the other calls cost what they cost.
func TestWorldChargesGitBuilds(t *testing.T) {
	t.Parallel()
	w, _ := newTestWorld(t)
	w.SetGitBuilds(true)
	repo := w.cfg.Repo
	a, b := w.OpenPR(PRSpec{}), w.OpenPR(PRSpec{})
	spent := func(what string, want GitHubCost, call func()) {
		t.Helper()
		before := w.Requests()
		call()
		got := w.Requests()
		if d := (GitHubCost{Writes: got.Writes - before.Writes, Reads: got.Reads - before.Reads, Git: got.Git - before.Git}); d != want {
			t.Errorf("%s cost %+v, want %+v", what, d, want)
		}
	}
	build := func(spec queue.BranchSpec) queue.Built {
		t.Helper()
		built, err := w.BuildBranch(worldCtx, repo, spec)
		if err != nil {
			t.Fatal(err)
		}
		return built
	}
	base := w.TargetHead()
	const lane = "mq-temp/lane-1"
	var first queue.Built
	spent("the first build: a fetch and a push", GitHubCost{Git: 4}, func() {
		first = build(queue.BranchSpec{From: base, Heads: headsOf(w, a), Temp: lane, KeepTemp: true, Name: "mq-merge/pr-1/r1"})
	})
	spent("a build on it deleting the first: a fetch of b's head, one push", GitHubCost{Git: 4}, func() {
		build(queue.BranchSpec{From: first.SHA, TempAt: "elsewhere", Heads: headsOf(w, b), Temp: lane, KeepTemp: true,
			Name: "mq-merge/pr-2/r2", Delete: []string{"mq-merge/pr-1/r1"}})
	})
	spent("a probe of known commits: nothing", GitHubCost{}, func() {
		build(queue.BranchSpec{From: base, Heads: headsOf(w, b), Temp: lane, KeepTemp: true})
	})
	spent("a merge", GitHubCost{Writes: 1}, func() {
		if _, err := queueMerge(w, a); err != nil {
			t.Fatal(err)
		}
	})
	if c := w.RequestsByCall()["BuildBranch"]; c.Writes != 0 || c.Reads != 0 || c.Calls() != 0 {
		t.Errorf("git builds charged %+v API requests", c)
	}
	if c := gitBuildCost(buildFacts{published: true}); c != (GitHubCost{Git: 2}) {
		t.Errorf("a publish of known commits costs %+v", c)
	}
}
