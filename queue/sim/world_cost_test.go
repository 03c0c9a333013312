package sim

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// TestGitHubCostModel: what each call costs, as githubx.Client sends it.
func TestGitHubCostModel(t *testing.T) {
	t.Parallel()
	lane := func(from, at string, heads ...string) queue.BranchSpec {
		s := queue.BranchSpec{From: from, Temp: "mq-temp/lane-1", KeepTemp: true, TempAt: at, Name: "mq-merge/pr-1/r"}
		for _, h := range heads {
			s.Heads = append(s.Heads, queue.MergeHead{SHA: h})
		}
		return s
	}
	withDelete := func(s queue.BranchSpec, names ...string) queue.BranchSpec { s.Delete = names; return s }
	probe := func(s queue.BranchSpec) queue.BranchSpec { s.Name = ""; return s }
	cases := []struct {
		name string
		got  GitHubCost
		want GitHubCost
	}{
		{"a PR read", fixedCosts["GetPullRequest"], GitHubCost{Reads: 1}},
		{"checks: statuses and check runs", fixedCosts["Checks"], GitHubCost{Reads: 2}},
		{"a merge", fixedCosts["MergePullRequest"], GitHubCost{Writes: 1}},
		{"a check run created or edited", fixedCosts["UpsertCheckRun"], GitHubCost{Writes: 1}},
		{"a comment created or edited", fixedCosts["UpsertComment"], GitHubCost{Writes: 1}},
		{"a branch deleted", fixedCosts["DeleteBranch"], GitHubCost{Writes: 1}},
		{"the tree of a commit the client built or read", treeCost(true), GitHubCost{}},
		{"the tree of another commit", treeCost(false), GitHubCost{Reads: 1}},
		{"no branch listed", listCost(0), GitHubCost{Reads: 1}},
		{"101 branches listed: two pages", listCost(101), GitHubCost{Reads: 2}},

		{"lane at From: one merge per head and the publish",
			buildCost(buildFacts{spec: lane("f", "f", "a", "b"), laneAt: "f", merges: 2, published: true}),
			GitHubCost{Writes: 3}},
		{"lane elsewhere: moved (one PATCH)",
			buildCost(buildFacts{spec: lane("f", "old", "a"), laneAt: "old", merges: 1, published: true}),
			GitHubCost{Writes: 3}},
		{"lane never created: PATCH refused as missing, then created",
			buildCost(buildFacts{spec: lane("f", "", "a"), merges: 1, published: true}),
			GitHubCost{Writes: 4}},
		{"lane said at From but elsewhere: a merge shows it, the lane moves, the merges again",
			buildCost(buildFacts{spec: lane("f", "f", "a", "b"), laneAt: "old", merges: 2, published: true}),
			GitHubCost{Writes: 1 + 1 + 2 + 1}},
		{"publish with deletions: one updateRefs, after the node id the first time",
			buildCost(buildFacts{spec: withDelete(lane("f", "f", "a"), "x", "y"), laneAt: "f", merges: 1, published: true}),
			GitHubCost{Writes: 2, Reads: 1}},
		{"publish with deletions, node id known",
			buildCost(buildFacts{spec: withDelete(lane("f", "f", "a"), "x"), laneAt: "f", merges: 1, published: true, nodeIDKnown: true}),
			GitHubCost{Writes: 2}},
		{"deletion of a missing branch refused: publish alone after it",
			buildCost(buildFacts{spec: withDelete(lane("f", "f", "a"), "x"), laneAt: "f", merges: 1, published: true, nodeIDKnown: true, deleteRefused: true}),
			GitHubCost{Writes: 3}},
		{"publish over an existing branch: POST refused, PATCH",
			buildCost(buildFacts{spec: lane("f", "f", "a"), laneAt: "f", merges: 1, published: true, nameExists: true}),
			GitHubCost{Writes: 3}},
		{"conflict at the second head: two merges, nothing published",
			buildCost(buildFacts{spec: lane("f", "f", "a", "b", "c"), laneAt: "f", merges: 2}),
			GitHubCost{Writes: 2}},
		{"probe on the lane: merges only",
			buildCost(buildFacts{spec: probe(lane("f", "f", "a", "b")), laneAt: "f", merges: 2}),
			GitHubCost{Writes: 2}},
		{"scratch ref per build: created and deleted",
			buildCost(buildFacts{spec: queue.BranchSpec{From: "f", Temp: "mq-temp/x", Name: "n", Heads: []queue.MergeHead{{SHA: "a"}}}, merges: 1, published: true}),
			GitHubCost{Writes: 4}},

		{"a batch of deletions", deleteBatchCost(30, false, true), GitHubCost{Writes: 1}},
		{"a batch of deletions, first mutation", deleteBatchCost(30, false, false), GitHubCost{Writes: 1, Reads: 1}},
		{"a refused batch: then one DELETE each", deleteBatchCost(30, true, true), GitHubCost{Writes: 31}},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
}

// TestWorldChargesTheClientsRequests: the World charges the calls it serves
// with what they cost in its state: a lane followed between builds, trees
// remembered, ended branches deleted with a publish or refused with it.
func TestWorldChargesTheClientsRequests(t *testing.T) {
	t.Parallel()
	w, _ := newTestWorld(t)
	repo := w.cfg.Repo
	a, b, c := w.OpenPR(PRSpec{}), w.OpenPR(PRSpec{}), w.OpenPR(PRSpec{})
	spent := func(what string, want GitHubCost, call func()) {
		t.Helper()
		before := w.Requests()
		call()
		if got := w.Requests(); got.Writes-before.Writes != want.Writes || got.Reads-before.Reads != want.Reads {
			t.Errorf("%s cost %d writes %d reads, want %+v", what, got.Writes-before.Writes, got.Reads-before.Reads, want)
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
	var first, second, third queue.Built
	spent("the first build (lane PATCH refused, created; one merge, publish)", GitHubCost{Writes: 4}, func() {
		first = build(queue.BranchSpec{From: base, Heads: headsOf(w, a), Temp: lane, KeepTemp: true, Name: "mq-merge/pr-1/r1"})
	})
	spent("a build on it, the lane where it was left", GitHubCost{Writes: 2}, func() {
		second = build(queue.BranchSpec{From: first.SHA, TempAt: first.SHA, Heads: headsOf(w, b), Temp: lane, KeepTemp: true, Name: "mq-merge/pr-2/r2"})
	})
	spent("a build from the target: the lane moves (one PATCH)", GitHubCost{Writes: 3}, func() {
		third = build(queue.BranchSpec{From: base, TempAt: second.SHA, Heads: headsOf(w, c), Temp: lane, KeepTemp: true, Name: "mq-merge/pr-3/r3"})
	})
	spent("a build told the lane is at From when it is not: a merge, the move, the merge again", GitHubCost{Writes: 4}, func() {
		third = build(queue.BranchSpec{From: base, TempAt: base, Heads: headsOf(w, c), Temp: lane, KeepTemp: true, Name: "mq-merge/pr-3/r3b"})
	})
	spent("the tree of a built commit", GitHubCost{}, func() { treeOf(t, w, second.SHA) })
	spent("the tree of the target, the first time", GitHubCost{Reads: 1}, func() { treeOf(t, w, base) })
	spent("the tree of the target again", GitHubCost{}, func() { treeOf(t, w, base) })

	var folded queue.Built
	spent("a publish that deletes an ended branch: node id, one updateRefs", GitHubCost{Writes: 2, Reads: 1}, func() {
		folded = build(queue.BranchSpec{From: third.SHA, TempAt: third.SHA, Heads: headsOf(w, b), Temp: lane, KeepTemp: true,
			Name: "mq-merge/pr-2/r4", Delete: []string{"mq-merge/pr-1/r1"}})
	})
	if !slices.Equal(folded.Deleted, []string{"mq-merge/pr-1/r1"}) {
		t.Errorf("deleted %v with the publish, want mq-merge/pr-1/r1", folded.Deleted)
	}
	spent("a publish whose deletions GitHub refuses (one is missing): updateRefs, then the publish alone", GitHubCost{Writes: 3}, func() {
		folded = build(queue.BranchSpec{From: folded.SHA, TempAt: folded.SHA, Heads: headsOf(w, a), Temp: lane, KeepTemp: true,
			Name: "mq-merge/pr-1/r5", Delete: []string{"mq-merge/pr-2/r2", "mq-merge/gone"}})
	})
	if len(folded.Deleted) != 0 || !slices.Contains(branches(t, w), "mq-merge/pr-2/r2") {
		t.Errorf("deleted %v, branches %v: a refused updateRefs deletes nothing", folded.Deleted, branches(t, w))
	}
	spent("a batch deletion with a missing branch: refused, then one DELETE each", GitHubCost{Writes: 3}, func() {
		if _, err := w.DeleteBranches(worldCtx, repo, []string{"mq-merge/pr-2/r2", "mq-merge/gone"}); err != nil {
			t.Fatal(err)
		}
	})
	if slices.Contains(branches(t, w), "mq-merge/pr-2/r2") {
		t.Error("the branch is still there after the batch fell back to deleting one by one")
	}
	spent("a merge and a check run", GitHubCost{Writes: 2}, func() {
		if _, err := queueMerge(w, a); err != nil {
			t.Fatal(err)
		}
		if _, err := w.UpsertCheckRun(worldCtx, repo, 0, queue.CheckRun{}); err != nil {
			t.Fatal(err)
		}
	})
	spent("reads of a PR, a branch head and checks", GitHubCost{Reads: 4}, func() {
		if _, err := w.GetPullRequest(worldCtx, repo, b); err != nil {
			t.Fatal(err)
		}
		if _, err := w.BranchHead(worldCtx, repo, "main"); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Checks(worldCtx, repo, base); err != nil {
			t.Fatal(err)
		}
	})
	by := w.RequestsByCall()
	if by["BuildBranch"].Writes != 4+2+3+4+2+3 || by["TreeSHA"].Reads != 1 || by["Checks"].Reads != 2 {
		t.Errorf("per call: %+v", by)
	}
}

func branches(t *testing.T, w *World) []string {
	t.Helper()
	out, err := w.ListBranches(worldCtx, w.cfg.Repo, "")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWriteHeadroom: the headroom follows GitHub's secondary limits in
// simulated time (80 writes a minute, 500 an hour), and the busiest hour
// is remembered.
func TestWriteHeadroom(t *testing.T) {
	t.Parallel()
	w, now := newTestWorld(t)
	repo := w.cfg.Repo
	writes := func(n int) {
		t.Helper()
		for range n {
			if _, err := w.UpsertComment(worldCtx, repo, 1, 7, "x"); err != nil {
				t.Fatal(err)
			}
		}
	}
	headroom := func(want float64) {
		t.Helper()
		if got := w.WriteHeadroom(repo); math.Abs(got-want) > 1e-9 {
			t.Errorf("at %s: headroom %.4f, want %.4f", now.Format(time.TimeOnly), got, want)
		}
	}
	headroom(1)
	if _, err := w.GetPullRequest(worldCtx, repo, w.OpenPR(PRSpec{})); err != nil {
		t.Fatal(err)
	}
	headroom(1) // reads are not content-creating
	writes(40)
	headroom(0.5) // half the minute's 80
	*now = now.Add(time.Minute)
	headroom(1 - 40.0/500) // the minute is free again; the hour holds them
	for range 11 {
		writes(40)
		*now = now.Add(time.Minute)
	}
	headroom(1 - 480.0/500) // 480 in the hour; the last minute's are a minute old
	writes(40)
	headroom(0) // 520 in the hour: spent, and not below 0
	*now = now.Add(48 * time.Minute)
	headroom(1 - 480.0/500) // the first 40 are an hour old
	if got := w.PeakHourlyWrites(); got != 520 {
		t.Errorf("peak %d writes in an hour, want 520", got)
	}
}
