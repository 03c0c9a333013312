package sandbox

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// The process stops while two PRs are testing (one submitted by REST, one
// by a /mq merge comment) and CI finishes while it is down (those webhooks
// are lost); restarted on the same SQLite file, the queue resumes and
// merges both PRs exactly once, in order.
func TestRestartMidTest(t *testing.T) {
	t.Parallel()
	restartMidTest(t, Options{})
}

// restartMidTest is the scenario of TestRestartMidTest on the database of
// opts (Options.Database: nil is the sandbox's SQLite file).
func restartMidTest(t *testing.T, opts Options) {
	t.Helper()
	h := newHarnessWith(t, opts)
	h.env.Fake.SetCIHold(true)
	h.createQueue(2)
	if err := h.env.Fake.SetPermission(owner, repo, "alice", "write"); err != nil {
		t.Fatal(err)
	}
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	p2 := h.openPR("two", map[string]string{"two.txt": "2\n"})
	initial := len(h.mainCommits())
	h.submit(p1)
	if _, err := h.env.Fake.Comment(owner, repo, p2, "alice", "/mq merge"); err != nil {
		t.Fatal(err)
	}
	h.waitState(p1, "testing")
	h.waitState(p2, "testing")

	if err := h.env.StopApp(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	h.env.Fake.SetCIHold(false)
	h.env.Fake.ReleaseCI()
	if err := h.env.RestartApp(context.Background()); err != nil {
		t.Fatalf("restart on the same database: %v", err)
	}

	h.waitState(p1, "merged")
	h.waitState(p2, "merged")
	if got := h.env.Fake.Calls("PUT /repos/{owner}/{repo}/pulls/{number}/merge"); got != 2 {
		t.Errorf("merge endpoint called %d times, want 2 (each PR once)", got)
	}
	commits := h.mainCommits()
	if i1, i2 := indexOf(commits, h.mergeCommit(p1)), indexOf(commits, h.mergeCommit(p2)); i1 < 0 || i1 >= i2 {
		t.Errorf("merge order on main: #%d at %d, #%d at %d; want submission order", p1, i1, p2, i2)
	}
	if got := len(commits) - initial; got != 2 {
		t.Errorf("main gained %d commits, want 2", got)
	}
	h.assertLandedTreesPassed(initial)
}

// GitHub is down when the process restarts: it comes back up on the App
// slug it learned at its first start (rather than refusing to start and
// losing webhooks), and once GitHub is back the queue carries on.
func TestRestartDuringGitHubOutage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueue(1)
	pr := h.openPR("one", map[string]string{"one.txt": "1\n"})
	if err := h.env.StopApp(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	h.env.Fake.InjectFault(fakegithub.Fault{Status: http.StatusServiceUnavailable, Times: -1})
	if err := h.env.RestartApp(context.Background()); err != nil {
		t.Fatalf("restart during the outage: %v", err)
	}
	resp, err := testHTTP.Get(h.env.URL + "/readyz")
	if err != nil {
		t.Fatalf("readyz during the outage: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("readyz during the outage: %d", resp.StatusCode)
	}
	h.env.Fake.ClearFaults()
	h.submit(pr)
	h.waitState(pr, "merged")
}

// A first start that cannot reach GitHub fails: nothing proves the App's
// credentials yet.
func TestFirstStartDuringGitHubOutageFails(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	if err := h.env.StopApp(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if err := os.Remove(h.env.DatabasePath()); err != nil {
		t.Fatal(err)
	}
	h.env.Fake.InjectFault(fakegithub.Fault{Status: http.StatusServiceUnavailable, Times: -1})
	err := h.env.RestartApp(context.Background())
	if err == nil || !strings.Contains(err.Error(), "failed to authenticate as the GitHub App") {
		t.Fatalf("first start during an outage = %v, want an authentication error", err)
	}
}
