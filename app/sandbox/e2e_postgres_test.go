package sandbox

import (
	"context"
	"testing"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/queue/postgres/pgtest"
)

// The whole app on PostgreSQL (database.driver postgres): PRs submitted by
// label and by comment merge once each, in order, across a restart of the
// app while they are testing; webhooks, the API's token and the queue's
// reads all go through the PostgreSQL store (skipped without
// MQ_TEST_POSTGRES_URL).
func TestEndToEndOnPostgres(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	h := newHarnessWith(t, Options{Database: &app.DatabaseConfig{Driver: app.DriverPostgres, URL: url}})
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
		t.Fatalf("restart on the same PostgreSQL schema: %v", err)
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
