package fakegithub

import (
	"testing"

	"github.com/google/go-github/v66/github"
)

// Landed attributes each first-parent commit to the PR it merged; the
// other helpers filter what the fake holds.
func TestInspectionHelpers(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{CI: CIOptions{Disabled: true}})
	sink := newHookSink(t, s)
	before := len(s.Deliveries()) // sent before the sink, to no URL
	initial := must(t)(s.BranchSHA(testOwner, testRepo, "main"))
	must(t)(s.Commit(testOwner, testRepo, "one", map[string]string{"one.txt": "1"}, "one"))
	n, err := s.OpenPR(testOwner, testRepo, PROptions{Head: "one"})
	if err != nil {
		t.Fatal(err)
	}
	merged := must(t)(s.MergePRManually(testOwner, testRepo, n, "octocat"))
	pushed := must(t)(s.PushToBranch(testOwner, testRepo, "main", map[string]string{"two.txt": "2"}))

	landed, err := s.Landed(testOwner, testRepo, "main")
	if err != nil {
		t.Fatal(err)
	}
	want := []LandedCommit{{SHA: initial}, {SHA: merged, PR: n}, {SHA: pushed}}
	if len(landed) != len(want) {
		t.Fatalf("Landed = %+v, want %+v", landed, want)
	}
	for i := range want {
		if landed[i] != want[i] {
			t.Errorf("Landed[%d] = %+v, want %+v", i, landed[i], want[i])
		}
	}

	must(t)(s.Commit(testOwner, testRepo, "mq-temp/abc", map[string]string{"x": "x"}, "scratch"))
	must(t)(s.Commit(testOwner, testRepo, "mq-tempo", map[string]string{"x": "x"}, "not scratch"))
	if got := s.BranchesWithPrefix(testOwner, testRepo, "mq-temp/"); len(got) != 1 || got[0] != "mq-temp/abc" {
		t.Errorf("BranchesWithPrefix(mq-temp/) = %v, want [mq-temp/abc]", got)
	}

	if _, err := s.Comment(testOwner, testRepo, n, "octocat", "<!-- marker --> hello"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Comment(testOwner, testRepo, n, "octocat", "other"); err != nil {
		t.Fatal(err)
	}
	if got := s.CommentsContaining(testOwner, testRepo, n, "<!-- marker -->"); len(got) != 1 || got[0].GetBody() != "<!-- marker --> hello" {
		t.Errorf("CommentsContaining = %v, want the marked comment", got)
	}

	c := newClient(t, s, "/")
	for _, name := range []string{"Merge Queue (main)", "other", "Merge Queue (main)"} {
		if _, _, err := c.Checks.CreateCheckRun(t.Context(), testOwner, testRepo, github.CreateCheckRunOptions{Name: name, HeadSHA: initial}); err != nil {
			t.Fatal(err)
		}
	}
	runs := s.CheckRunsNamed(testOwner, testRepo, initial, "Merge Queue (main)")
	if len(runs) != 2 || runs[0].GetID() >= runs[1].GetID() {
		t.Errorf("CheckRunsNamed = %v, want both Merge Queue (main) runs, oldest first", runs)
	}

	sink.names(s) // waits until every delivery was attempted
	acked := s.AcknowledgedDeliveries()
	if sent := len(s.Deliveries()) - before; len(acked) == 0 || len(acked) != sent {
		t.Errorf("AcknowledgedDeliveries = %d, want all %d sent to the sink (it answers 200)", len(acked), sent)
	}
	s.SetWebhookURL("http://127.0.0.1:1/unreachable")
	if _, err := s.Comment(testOwner, testRepo, n, "octocat", "lost"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, s)
	if got := len(s.AcknowledgedDeliveries()); got != len(acked) {
		t.Errorf("a failed delivery counts as acknowledged: %d, want %d", got, len(acked))
	}
}
