package sim

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

var worldCtx = context.Background()

// newTestWorld returns a World on a settable clock.
func newTestWorld(t *testing.T) (*World, *time.Time) {
	t.Helper()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return NewWorld(WorldConfig{Now: func() time.Time { return now }}), &now
}

func headsOf(w *World, prs ...int) []queue.MergeHead {
	var out []queue.MergeHead
	for _, n := range prs {
		out = append(out, queue.MergeHead{PRNumber: n, SHA: w.PR(n).HeadSHA})
	}
	return out
}

// build publishes a test branch with prs on the target head.
func publishTest(t *testing.T, w *World, name string, prs ...int) string {
	t.Helper()
	built, err := w.BuildBranch(worldCtx, w.cfg.Repo, queue.BranchSpec{From: w.TargetHead(), Heads: headsOf(w, prs...), Name: name})
	if err != nil {
		t.Fatalf("BuildBranch(%v): %v", prs, err)
	}
	return built.SHA
}

func queueMerge(w *World, n int) (string, error) {
	return w.MergePullRequest(worldCtx, w.cfg.Repo, n, queue.MergeRequest{SHA: w.PR(n).HeadSHA, Method: queue.Squash})
}

func treeOf(t *testing.T, w *World, sha string) string {
	t.Helper()
	tr, err := w.TreeSHA(worldCtx, w.cfg.Repo, sha)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestBuildBranch(t *testing.T) {
	t.Parallel()
	w, _ := newTestWorld(t)
	a, b := w.OpenPR(PRSpec{}), w.OpenPR(PRSpec{Conflicts: []int{1}})
	c := w.OpenPR(PRSpec{})

	_, err := w.BuildBranch(worldCtx, w.cfg.Repo, queue.BranchSpec{From: w.TargetHead(), Heads: headsOf(w, a, c, b), Name: "mq-merge/x"})
	var conflict *queue.ConflictError
	if !errors.As(err, &conflict) || conflict.Index != 2 || conflict.SHA != w.PR(b).HeadSHA {
		t.Errorf("conflicting build = %v, want a ConflictError at index 2", err)
	}
	if got := w.PendingCI(); len(got) != 0 {
		t.Errorf("a failed build published %v", got)
	}

	_, err = w.BuildBranch(worldCtx, w.cfg.Repo, queue.BranchSpec{From: w.TargetHead(), Heads: []queue.MergeHead{{PRNumber: a, SHA: "nope"}}, Name: "mq-merge/y"})
	if err == nil || errors.As(err, &conflict) {
		t.Errorf("build with an unknown head = %v, want a non-conflict error", err)
	}

	// A patch already on the target merges as a no-op: same tree.
	if _, err := w.MergeManually(a); err != nil {
		t.Fatal(err)
	}
	sha := publishTest(t, w, "mq-temp/check", a)
	if treeOf(t, w, sha) != treeOf(t, w, w.TargetHead()) || sha == w.TargetHead() {
		t.Errorf("no-op build: tree %s, sha %s; target tree %s", treeOf(t, w, sha), sha, treeOf(t, w, w.TargetHead()))
	}
	if w.InFlight() != 0 {
		t.Errorf("an mq-temp branch counts as a test run")
	}
	// Trees are content: the same patches in another order are the same tree.
	x, y := publishTest(t, w, "mq-merge/1", c), w.PushTarget()
	if treeOf(t, w, x) == treeOf(t, w, y) {
		t.Error("different content, same tree")
	}
	w2, _ := newTestWorld(t)
	for range 3 {
		w2.OpenPR(PRSpec{})
	}
	pb, _ := w2.BuildBranch(worldCtx, w2.cfg.Repo, queue.BranchSpec{From: w2.TargetHead(), Heads: headsOf(w2, 1, 3), Name: "p"})
	qb, _ := w2.BuildBranch(worldCtx, w2.cfg.Repo, queue.BranchSpec{From: w2.TargetHead(), Heads: headsOf(w2, 3, 1), Name: "q"})
	p, q := pb.SHA, qb.SHA
	if treeOf(t, w2, p) != treeOf(t, w2, q) || p == q {
		t.Errorf("same patches in another order: trees %s %s, shas %s %s", treeOf(t, w2, p), treeOf(t, w2, q), p, q)
	}
}

func TestPullRequestFacts(t *testing.T) {
	t.Parallel()
	w, _ := newTestWorld(t)
	a, b := w.OpenPR(PRSpec{Title: "A"}), w.OpenPR(PRSpec{Conflicts: []int{1}})
	pr, err := w.GetPullRequest(worldCtx, w.cfg.Repo, b)
	if err != nil || pr.MergeableState != "clean" || !*pr.Mergeable || !pr.Open || pr.BaseBranch != "main" {
		t.Fatalf("fresh PR = %+v, %v", pr, err)
	}
	if _, err := w.MergeManually(a); err != nil {
		t.Fatal(err)
	}
	if pr := w.PR(b); pr.MergeableState != "dirty" || *pr.Mergeable {
		t.Errorf("PR conflicting with the target = %+v, want dirty", pr.PRFacts)
	}
	if pr := w.PR(a); !pr.Merged || pr.Open || pr.MergeCommitSHA != w.TargetHead() {
		t.Errorf("manually merged PR = %+v", pr.PRFacts)
	}
	old := w.PR(b).HeadSHA
	if sha := w.PushPR(b); sha == old || w.PR(b).HeadSHA != sha {
		t.Errorf("PushPR did not move the head")
	}
	w.ClosePR(b)
	if pr := w.PR(b); pr.Open {
		t.Errorf("closed PR is open")
	}
	if _, err := w.GetPullRequest(worldCtx, w.cfg.Repo, 99); !errors.Is(err, queue.ErrPRNotFound) {
		t.Errorf("unknown PR = %v, want ErrPRNotFound", err)
	}
	if _, err := w.MergeManually(b); err == nil {
		t.Error("manual merge of a closed PR succeeded")
	}
	if got := w.Merged(); !slices.Equal(got, []int{a}) || len(w.MergedByQueue()) != 0 {
		t.Errorf("Merged = %v, MergedByQueue = %v", got, w.MergedByQueue())
	}
}

func TestCIBookkeeping(t *testing.T) {
	t.Parallel()
	w, now := newTestWorld(t)
	var published []CIJob
	w.SetOnPublish(func(j CIJob) { published = append(published, j) })
	w.SetMaxInFlight(2)
	a, b, c := w.OpenPR(PRSpec{}), w.OpenPR(PRSpec{Bad: true}), w.OpenPR(PRSpec{})
	ta := publishTest(t, w, "mq-merge/a", a)
	*now = now.Add(time.Minute)
	built, err := w.BuildBranch(worldCtx, w.cfg.Repo, queue.BranchSpec{From: ta, Heads: headsOf(w, b), Name: "mq-merge/b"})
	if err != nil {
		t.Fatal(err)
	}
	tb := built.SHA
	if len(published) != 2 || !slices.Equal(published[1].Contains, []int{a, b}) || published[1].SHA != tb {
		t.Fatalf("published %+v", published)
	}
	if got := w.PendingCI(); len(got) != 2 || got[0].SHA != ta || got[1].SHA != tb {
		t.Errorf("PendingCI = %+v, want a then b", got)
	}
	if !w.Intrinsic(ta) || w.Intrinsic(tb) {
		t.Errorf("Intrinsic(a) = %v, Intrinsic(a+bad) = %v", w.Intrinsic(ta), w.Intrinsic(tb))
	}
	if got := w.PRsIn(tb); !slices.Equal(got, []int{a, b}) {
		t.Errorf("PRsIn = %v", got)
	}
	res := w.ReportCI(ta, true)
	if len(res) != 1 || res[0].Name != "ci" || res[0].State != queue.CheckSuccess || res[0].SHA != ta {
		t.Errorf("ReportCI = %+v", res)
	}
	if got, _ := w.Checks(worldCtx, w.cfg.Repo, ta); len(got) != 1 || got[0] != res[0] {
		t.Errorf("Checks = %+v, want what ReportCI returned", got)
	}
	if w.InFlight() != 1 {
		t.Errorf("InFlight after a report = %d, want 1", w.InFlight())
	}
	if err := w.DeleteBranch(worldCtx, w.cfg.Repo, "mq-merge/b"); err != nil {
		t.Fatal(err)
	}
	if err := w.DeleteBranch(worldCtx, w.cfg.Repo, "mq-merge/b"); err != nil {
		t.Errorf("deleting a missing branch = %v", err)
	}
	if w.InFlight() != 0 || len(w.PendingCI()) != 0 {
		t.Errorf("deleted branch still in flight: %d, %v", w.InFlight(), w.PendingCI())
	}
	w.ReportCI(tb, false) // CI on a deleted branch is still recordable
	if got, _ := w.Checks(worldCtx, w.cfg.Repo, tb); len(got) != 1 {
		t.Errorf("late report not recorded: %v", got)
	}

	w.SetTestTimeout(30 * time.Minute)
	publishTest(t, w, "mq-merge/c1", c)
	*now = now.Add(31 * time.Minute)
	publishTest(t, w, "mq-merge/c2", c)
	publishTest(t, w, "mq-merge/c3", c)
	if got := w.Violations(); len(got) != 0 || w.InFlight() != 2 || w.MaxInFlight() != 2 {
		t.Errorf("timed-out run counted: InFlight %d, MaxInFlight %d, violations %q", w.InFlight(), w.MaxInFlight(), got)
	}
	publishTest(t, w, "mq-merge/c4", c)
	if got := w.Violations(); len(got) != 1 || !strings.Contains(got[0], "more than the bound 2") {
		t.Errorf("violations %q, want the in-flight bound", got)
	}
}

// TestContainsMatchesHistory checks the binary-lifting membership test
// against a walk of the history, on a long target branch.
func TestContainsMatchesHistory(t *testing.T) {
	t.Parallel()
	w, _ := newTestWorld(t)
	var shas []string
	for i := range 300 {
		n := w.OpenPR(PRSpec{})
		if i%3 == 0 {
			w.PushTarget()
		}
		if i%2 == 0 {
			if _, err := w.MergeManually(n); err != nil {
				t.Fatal(err)
			}
		}
		shas = append(shas, w.TargetHead())
	}
	for _, sha := range []string{shas[0], shas[7], shas[150], shas[299]} {
		c := w.commits[sha]
		want := w.PRsIn(sha)
		var got []int
		for n := 1; n <= 300; n++ {
			if w.addedBy(c, n) != nil {
				got = append(got, n)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("at %s: addedBy finds %v, history holds %v", shortSHA(sha), got, want)
		}
	}
}

func TestDeterministicSHAs(t *testing.T) {
	t.Parallel()
	run := func() []string {
		w, _ := newTestWorld(t)
		a := w.OpenPR(PRSpec{})
		return []string{w.PushPR(a), w.PushTarget(), publishTest(t, w, "mq-merge/a", a)}
	}
	if a, b := run(), run(); !slices.Equal(a, b) {
		t.Errorf("two identical runs made different SHAs: %v vs %v", a, b)
	}
}
