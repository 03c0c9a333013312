package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue/postgres/pgtest"
)

// With -postgres the run measures the server on PostgreSQL: every figure
// answers, the report names the store, and the server's URL is not
// printed.
func TestTinyRunOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service twice")
	}
	url := pgtest.URL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	args := []string{"-rounds", "1", "-duration", "200ms", "-clients", "2", "-senders", "2", "-entries", "3", "-prs", "2",
		"-reconcile-interval", "500ms", "-test-branches", "rest", "-only", "getSubmittedPullRequest,webhooks,writes", "-postgres", url}
	if code := run(ctx, args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}
	got := out.String()
	for _, want := range []string{"Store: PostgreSQL ", "-postgres $MQ_TEST_POSTGRES_URL"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, url) {
		t.Errorf("the report prints the server's URL:\n%s", got)
	}
	figure := regexp.MustCompile(`(?m)^\| (getSubmittedPullRequest|signed webhook)[^|]* \| [0-9,]+ \| [0-9.]+ ms \| [0-9.]+ ms \| [0-9]+ % \| 0 \|$`)
	if n := len(figure.FindAllString(got, -1)); n != 2 {
		t.Errorf("%d complete figure rows without failures, want 2:\n%s", n, got)
	}
	writes := regexp.MustCompile(`(?m)^\| content-creating calls[^|]*\| ([0-9.]+) \| ([0-9.]+) \|`) // rest's columns come first
	if m := writes.FindStringSubmatch(got); m == nil || m[1] == "0.00" || m[2] == "0.00" {
		t.Errorf("no writes per merged PR counted on PostgreSQL:\n%s", got)
	}
}
