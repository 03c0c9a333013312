package sandbox

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers/api"
	"github.com/mergequeue/mq/queue"
)

// hostileFields are, per request field, names the naming rules refuse:
// path traversal, encoded slashes, control characters, bidi overrides,
// over-long names, dot segments and what git refuses in a ref.
var hostileFields = map[string][]string{
	"repo.host": {"github.com/../app", "github.com%2F..", "github.com\x00", "git\nhub.com", "-github.com",
		"github.com:0", "github.com.", strings.Repeat("a.", 127) + "com"},
	"repo.owner": {"acme/../evil", "..", ".", "acme%2F..%2Fevil", "acme\x00", "acme\n", "ac\rme", "ac\tme", "acme\x1b",
		"acme\u202e", "acme\u200b", strings.Repeat("a", 40), "-acme", "acme-", "ac--me", "a b", "acme?x", "acme#x"},
	"repo.name": {"../../app/installations", "..", ".", "widgets%2F..", "w\x00", "w\n", "w\x7f", "\u202ewidgets",
		strings.Repeat("r", 101), "w/x", "w?x"},
	"targetBranch": {"a..b", "../../app/installations", "main/../../x", "main%2F..", "main\x00", "main\n", "main\r\n",
		"main\x1b", "main\u202e", "main\u2066", "main\u0085", strings.Repeat("b", 256), ".", "..", "x.lock", "a/x.lock/b",
		"main@{1}", "@{-1}", "-x", "/main", "main/", "a//b", ".hidden", "a/.b", "main.", "@", "HEAD",
		"a b", "a~1", "a^", "a:b", "a?", "a*", "a[b", `a\b`},
}

// postExtras complete each POST operation's request besides repo and
// targetBranch; with valid names each would pass validation.
var postExtras = map[string]map[string]any{
	"submitPullRequest":           {"pr": map[string]any{"number": 1}},
	"cancelPullRequest":           {"pr": map[string]any{"number": 1}},
	"restartTestsOnPullRequest":   {"pr": map[string]any{"number": 1}},
	"getSubmittedPullRequest":     {"pr": map[string]any{"number": 1}},
	"setImpactedTargets":          {"pr": map[string]any{"number": 1, "sha": strings.Repeat("a", 40)}, "impactedTargets": "ALL"},
	"getMergeQueueTestingDetails": {"testRunId": "run-1"},
	"createQueue":                 {"concurrency": 2},
	"deleteQueue":                 {},
	"getQueue":                    {},
	"updateQueue":                 {"concurrency": 2},
	"listPullRequests":            {"take": 5},
}

// hostileBody is a request for op with field set to value.
func hostileBody(op, field, value string) map[string]any {
	repo := repoBody()
	b := map[string]any{"repo": repo, "targetBranch": "main"}
	maps.Copy(b, postExtras[op])
	if field == "targetBranch" {
		b["targetBranch"] = value
	} else {
		repo[strings.TrimPrefix(field, "repo.")] = value
	}
	return b
}

// githubCalls snapshots the fake GitHub's call counters.
func (h *harness) githubCalls() map[string]int { return h.env.Fake.CallCounts() }

// wantNoGitHubCalls fails if the fake GitHub's counters moved since before.
func (h *harness) wantNoGitHubCalls(t *testing.T, before map[string]int) {
	t.Helper()
	after := h.githubCalls()
	if !maps.Equal(before, after) {
		var moved []string
		for k, v := range after {
			if before[k] != v {
				moved = append(moved, fmt.Sprintf("%s +%d", k, v-before[k]))
			}
		}
		slices.Sort(moved)
		t.Errorf("requests reached the fake GitHub: %v", moved)
	}
}

// TestHostileNamesNeverReachGitHub runs every operation of the REST API
// with each hostile name in each field it takes, against the real app and
// the fake GitHub: each is a one-line 400 naming the field, nothing is
// stored, and the fake GitHub receives no request at all. The same holds
// for setImpactedTargets authenticated by a forked workflow run, where no
// token scope stands between the request and GitHub.
func TestHostileNamesNeverReachGitHub(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	ops := slices.Sorted(maps.Keys(postExtras))
	if len(ops) != 11 {
		t.Fatalf("%d POST operations covered, want 11 (and getMergeQueueMetrics below)", len(ops))
	}
	wantBadRequest := func(t *testing.T, status int, body, field string) {
		t.Helper()
		if status != http.StatusBadRequest || !strings.HasPrefix(body, "invalid field "+field+": ") ||
			strings.Count(body, "\n") != 1 || !strings.HasSuffix(body, "\n") {
			t.Errorf("status %d %q, want 400 with one line naming %s", status, body, field)
		}
	}
	for _, field := range slices.Sorted(maps.Keys(hostileFields)) {
		for _, value := range hostileFields[field] {
			for _, op := range ops {
				t.Run(op+"/"+field+"/"+url.PathEscape(value), func(t *testing.T) {
					before := h.githubCalls()
					status, body := h.post(op, hostileBody(op, field, value))
					wantBadRequest(t, status, string(body), field)
					h.wantNoGitHubCalls(t, before)
				})
			}
			t.Run("forked run/"+field+"/"+url.PathEscape(value), func(t *testing.T) {
				before := h.githubCalls()
				status, body, _ := h.sessionRaw(http.MethodPost, "/v1/setImpactedTargets",
					hostileBody("setImpactedTargets", field, value), map[string]string{api.ForkedRunHeader: "777"})
				wantBadRequest(t, status, body, field)
				h.wantNoGitHubCalls(t, before)
			})
		}
	}

	// getMergeQueueMetrics takes the names as query parameters.
	for _, q := range []url.Values{
		{"repoHost": {"github.com/../app"}, "repo": {owner + "/" + repo}},
		{"repoHost": {"git\x00hub.com"}},
		{"repoHost": {"github.com"}, "repo": {"../app/installations"}},
		{"repoHost": {"github.com"}, "repo": {"acme/.."}},
		{"repoHost": {"github.com"}, "repo": {"acme\u202e/widgets"}},
		{"repoHost": {"github.com"}, "repo": {"acme/w\x00"}},
		{"repoHost": {"github.com"}, "repo": {"-acme/widgets"}},
	} {
		t.Run("getMergeQueueMetrics/"+q.Encode(), func(t *testing.T) {
			before := h.githubCalls()
			status, body, _ := h.sessionRaw(http.MethodGet, "/v1/getMergeQueueMetrics?"+q.Encode(), nil,
				map[string]string{api.TokenHeader: h.token})
			if status != http.StatusBadRequest || !strings.HasPrefix(body, "invalid parameter repo") {
				t.Errorf("status %d %q, want 400 naming the parameter", status, body)
			}
			h.wantNoGitHubCalls(t, before)
		})
	}

	queues, err := h.env.App().Reads().ListQueues(context.Background())
	if err != nil || len(queues) != 0 {
		t.Errorf("queues stored: %d (%v), want none", len(queues), err)
	}
}

// TestSetImpactedTargetsUnknownPR: a PR GitHub does not know is 404 (SPEC
// §7), whether the request carries a token or a forked workflow run.
func TestSetImpactedTargetsUnknownPR(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueue(1)
	sha := strings.Repeat("b", 40)
	req := map[string]any{"repo": repoBody(), "targetBranch": "main",
		"pr": map[string]any{"number": 4242, "sha": sha}, "impactedTargets": []string{"//a"}}
	status, body := h.post("setImpactedTargets", req)
	if status != http.StatusNotFound || string(body) != "pull request #4242 not found on GitHub in acme/widgets\n" {
		t.Errorf("token: %d %q, want 404 naming the PR", status, body)
	}
	h.addForkRun(forkRun(991, sha, "gone"))
	status, text, _ := h.sessionRaw(http.MethodPost, "/v1/setImpactedTargets", req, map[string]string{api.ForkedRunHeader: "991"})
	if status != http.StatusNotFound || text != "pull request #4242 not found on GitHub in acme/widgets\n" {
		t.Errorf("forked run: %d %q, want 404 naming the PR", status, text)
	}
	// Nothing was stored for the unknown PR.
	ctx := context.Background()
	q, _, err := h.env.App().Reads().GetQueue(ctx, queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: owner, Name: repo}, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.env.App().Store().GetTargets(ctx, q.ID, 4242); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("targets of the unknown PR: %v, want none stored", err)
	}
}
