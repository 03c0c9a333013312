package sim

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestMergeInvariants(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// run opens PRs, tests and merges; it returns the merge error it expects nothing of.
		run  func(t *testing.T, w *World)
		want string // substring of the one expected violation ("" = none)
	}{
		{"tested head merges cleanly", func(t *testing.T, w *World) {
			a := w.OpenPR(PRSpec{})
			w.ReportCI(publishTest(t, w, "mq-merge/a", a), true)
			mustQueueMerge(t, w, a)
		}, ""},
		{"a batch lands one PR at a time", func(t *testing.T, w *World) {
			a, b := w.OpenPR(PRSpec{}), w.OpenPR(PRSpec{})
			w.ReportCI(publishTest(t, w, "mq-merge/ab", a, b), true)
			mustQueueMerge(t, w, a)
			mustQueueMerge(t, w, b)
		}, ""},
		{"an incremental chain", func(t *testing.T, w *World) {
			a, b := w.OpenPR(PRSpec{}), w.OpenPR(PRSpec{})
			ta := publishTest(t, w, "mq-merge/a", a)
			built, err := w.BuildBranch(worldCtx, w.cfg.Repo, queue.BranchSpec{From: ta, Heads: headsOf(w, b), Name: "mq-merge/b"})
			if err != nil {
				t.Fatal(err)
			}
			tb := built.SHA
			w.ReportCI(tb, true)
			w.ReportCI(ta, false) // a flake ahead, vouched for by b's run
			mustQueueMerge(t, w, a)
			mustQueueMerge(t, w, b)
		}, ""},
		{"untested head", func(t *testing.T, w *World) {
			mustQueueMerge(t, w, w.OpenPR(PRSpec{}))
		}, "no passing test commit merged"},
		{"failed test", func(t *testing.T, w *World) {
			a := w.OpenPR(PRSpec{})
			w.ReportCI(publishTest(t, w, "mq-merge/a", a), false)
			mustQueueMerge(t, w, a)
		}, "no passing test commit merged"},
		{"out of order", func(t *testing.T, w *World) {
			a, b := w.OpenPR(PRSpec{}), w.OpenPR(PRSpec{})
			w.ReportCI(publishTest(t, w, "mq-merge/ab", a, b), true)
			mustQueueMerge(t, w, b)
		}, "which no passing test commit"},
		{"target moved outside the queue", func(t *testing.T, w *World) {
			a := w.OpenPR(PRSpec{})
			w.ReportCI(publishTest(t, w, "mq-merge/a", a), true)
			w.PushTarget()
			mustQueueMerge(t, w, a)
		}, "which no passing test commit"},
		{"bad PR reported passing", func(t *testing.T, w *World) {
			a := w.OpenPR(PRSpec{Bad: true})
			sha := publishTest(t, w, "mq-merge/a", a)
			if w.Intrinsic(sha) {
				t.Error("a tree with a Bad PR is intrinsically passing")
			}
			w.ReportCI(sha, true)
			mustQueueMerge(t, w, a)
		}, "which is Bad"},
		{"second merge attempt", func(t *testing.T, w *World) {
			a := w.OpenPR(PRSpec{})
			w.ReportCI(publishTest(t, w, "mq-merge/a", a), true)
			mustQueueMerge(t, w, a)
			var rejected *queue.RejectedError
			if _, err := queueMerge(w, a); !errors.As(err, &rejected) {
				t.Errorf("second merge = %v, want a RejectedError", err)
			}
		}, "a second time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w, _ := newTestWorld(t)
			tc.run(t, w)
			got := w.Violations()
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("violations %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("violations %q, want one mentioning %q", got, tc.want)
			}
		})
	}
}

func mustQueueMerge(t *testing.T, w *World, n int) {
	t.Helper()
	if _, err := queueMerge(w, n); err != nil {
		t.Fatalf("merge #%d: %v", n, err)
	}
}

func TestMergeRefusals(t *testing.T) {
	t.Parallel()
	w, _ := newTestWorld(t)
	a, b := w.OpenPR(PRSpec{}), w.OpenPR(PRSpec{Conflicts: []int{1}})
	w.ReportCI(publishTest(t, w, "mq-merge/ab", a), true)
	old := w.PR(a).HeadSHA
	w.PushPR(a)
	if _, err := w.MergePullRequest(worldCtx, w.cfg.Repo, a, queue.MergeRequest{SHA: old}); !errors.Is(err, queue.ErrHeadMoved) {
		t.Errorf("merge of an old head = %v, want ErrHeadMoved", err)
	}
	if _, err := w.MergeManually(a); err != nil {
		t.Fatal(err)
	}
	var rejected *queue.RejectedError
	if _, err := queueMerge(w, b); !errors.As(err, &rejected) || rejected.Status != 405 {
		t.Errorf("merge of a PR conflicting with the target = %v, want a 405", err)
	}
	w.ClosePR(b)
	if _, err := queueMerge(w, b); !errors.As(err, &rejected) {
		t.Errorf("merge of a closed PR = %v, want a RejectedError", err)
	}
	if got := w.Violations(); len(got) != 0 {
		t.Errorf("refused merges recorded violations: %q", got)
	}
	if got := w.Calls()["MergePullRequest"]; got != 3 {
		t.Errorf("Calls counted %d merges, want 3", got)
	}
}

func TestMergeFaults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fault   MergeFault
		want    error
		landed  bool
		message string
	}{
		{FaultBaseModified, queue.ErrBaseModified, false, "base modified"},
		{FaultTransient, queue.ErrTransient, false, "transient"},
		{FaultAppliedThenTransient, queue.ErrTransient, true, "applied then transient"},
	}
	for _, tc := range cases {
		t.Run(tc.fault.String(), func(t *testing.T) {
			t.Parallel()
			w, _ := newTestWorld(t)
			a := w.OpenPR(PRSpec{})
			w.ReportCI(publishTest(t, w, "mq-merge/a", a), true)
			w.FailNextMerges(tc.fault)
			if w.PendingFaults() != 1 {
				t.Fatalf("PendingFaults = %d", w.PendingFaults())
			}
			_, err := queueMerge(w, a)
			if !errors.Is(err, tc.want) {
				t.Errorf("merge = %v, want %v", err, tc.want)
			}
			if got := w.PR(a).Merged; got != tc.landed {
				t.Errorf("merged = %v, want %v", got, tc.landed)
			}
			if !tc.landed {
				mustQueueMerge(t, w, a) // the fault is spent: the retry lands
			}
			if v := w.Violations(); len(v) > 0 || w.PendingFaults() != 0 {
				t.Errorf("violations %q, pending faults %d", v, w.PendingFaults())
			}
		})
	}
}

func TestDirectMergeOfTestedHead(t *testing.T) {
	t.Parallel()
	w, _ := newTestWorld(t)
	a, b := w.OpenPR(PRSpec{}), w.OpenPR(PRSpec{})
	head := w.PR(a).HeadSHA
	if ok, err := w.Contains(worldCtx, w.cfg.Repo, w.TargetHead(), head); err != nil || !ok {
		t.Fatalf("a fresh head does not contain the target: %v, %v", ok, err)
	}
	w.ReportCI(head, true) // CI on the PR head itself
	mustQueueMerge(t, w, a)
	if v := w.Violations(); len(v) > 0 {
		t.Errorf("direct merge of a head whose own CI passed: %q", v)
	}
	// b's head was pushed on the old target: it does not contain the new one,
	// and its own CI does not test what merging it now lands.
	if ok, _ := w.Contains(worldCtx, w.cfg.Repo, w.TargetHead(), w.PR(b).HeadSHA); ok {
		t.Error("a stale head contains the moved target")
	}
	w.ReportCI(w.PR(b).HeadSHA, true)
	mustQueueMerge(t, w, b)
	if v := w.Violations(); len(v) != 1 || !strings.Contains(v[0], "which no passing test commit") {
		t.Errorf("violations %q, want an untested tree", v)
	}
}

func TestParallelLanding(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) (*World, int, int, int) {
		w, _ := newTestWorld(t)
		w.SetParallel(true)
		a := w.OpenPR(PRSpec{Targets: []string{"//a"}})
		b := w.OpenPR(PRSpec{Targets: []string{"//b"}})
		c := w.OpenPR(PRSpec{Targets: []string{"//a", "//c"}})
		return w, a, b, c
	}
	t.Run("independent PRs land untested together", func(t *testing.T) {
		t.Parallel()
		w, a, b, _ := setup(t)
		w.ReportCI(publishTest(t, w, "mq-merge/a", a), true)
		w.ReportCI(publishTest(t, w, "mq-merge/b", b), true)
		mustQueueMerge(t, w, a)
		mustQueueMerge(t, w, b)
		if v := w.Violations(); len(v) > 0 {
			t.Errorf("violations %q", v)
		}
	})
	t.Run("a dependency missing from the test", func(t *testing.T) {
		t.Parallel()
		w, a, _, c := setup(t)
		w.ReportCI(publishTest(t, w, "mq-merge/a", a), true)
		w.ReportCI(publishTest(t, w, "mq-merge/c", c), true) // tested without a, which shares //a
		mustQueueMerge(t, w, a)
		mustQueueMerge(t, w, c)
		if v := w.Violations(); len(v) != 1 {
			t.Errorf("violations %q, want c's landing flagged", v)
		}
	})
	t.Run("the same landing in single mode", func(t *testing.T) {
		t.Parallel()
		w, a, b, _ := setup(t)
		w.SetParallelFunc(func() bool { return false })
		w.ReportCI(publishTest(t, w, "mq-merge/a", a), true)
		w.ReportCI(publishTest(t, w, "mq-merge/b", b), true)
		mustQueueMerge(t, w, a)
		mustQueueMerge(t, w, b)
		if v := w.Violations(); len(v) != 1 {
			t.Errorf("violations %q, want b's untested tree flagged", v)
		}
	})
}

func TestDiffFiles(t *testing.T) {
	t.Parallel()
	w, _ := newTestWorld(t)
	a := w.OpenPR(PRSpec{Targets: []string{"//a", "//b"}})
	all := w.OpenPR(PRSpec{AllTargets: true})
	docs := w.OpenPR(PRSpec{Targets: []string{}})
	base := w.TargetHead()
	tip := publishTest(t, w, "mq-merge/x", a, all, docs)
	if _, complete, err := w.DiffFiles(worldCtx, w.cfg.Repo, base, tip); err != nil || complete {
		t.Fatalf("DiffFiles while off = complete %v, %v; want incomplete", complete, err)
	}
	w.SetFileDiffs(true)
	got, complete, err := w.DiffFiles(worldCtx, w.cfg.Repo, base, tip)
	if err != nil || !complete {
		t.Fatalf("DiffFiles = %v, %v", complete, err)
	}
	want := []string{"//:root", "//a", "//b", "docs/3.md"}
	var files []string
	for f, blob := range got {
		files = append(files, f)
		if blob == "" {
			t.Errorf("%s has no blob", f)
		}
	}
	slices.Sort(files)
	if !slices.Equal(files, want) {
		t.Errorf("files = %v, want %v", files, want)
	}
	// The same file written by another patch has another blob.
	b := w.OpenPR(PRSpec{Targets: []string{"//a"}})
	tip2 := publishTest(t, w, "mq-merge/y", a, b)
	got2, _, _ := w.DiffFiles(worldCtx, w.cfg.Repo, base, tip2)
	if got2["//a"] == got["//a"] || got2["//b"] != got["//b"] {
		t.Errorf("blobs: //a %s vs %s, //b %s vs %s", got2["//a"], got["//a"], got2["//b"], got["//b"])
	}
}
