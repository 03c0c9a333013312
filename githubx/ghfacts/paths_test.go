package ghfacts_test

// The two ways GitHub's objects reach the queue — webhook payloads through
// the handlers, REST answers through githubx — are run side by side here on
// the same objects: GitHub's example payloads (their objects served as REST
// answers) and the fake GitHub's REST answers (sent as webhook payloads).

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers"
	"github.com/mergequeue/mq/queue"
)

// examplesDir holds GitHub's example webhook payloads (octokit/webhooks).
const examplesDir = "../../handlers/testdata/github-webhook-examples"

// captured is a handlers.Service keeping the facts the handlers pass on.
// The embedded interface is nil: the fact handlers call nothing else.
type captured struct {
	handlers.Service

	mu     sync.Mutex
	prs    []queue.PullRequest
	checks []queue.CheckResult
}

func (c *captured) OnPullRequest(_ context.Context, _ queue.Repo, pr queue.PullRequest) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prs = append(c.prs, pr)
	return nil
}

func (c *captured) OnCheck(_ context.Context, _ queue.Repo, r queue.CheckResult) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checks = append(c.checks, r)
	return nil
}

// viaWebhook delivers payload to the handler of event and returns what it
// passed on.
func viaWebhook(t *testing.T, event string, payload []byte) *captured {
	t.Helper()
	svc := &captured{}
	var h interface {
		Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error
	}
	switch event {
	case "pull_request":
		h = handlers.NewPullRequestHandler(handlers.Config{}, svc, nil, nil)
	case "check_run":
		h = handlers.NewCheckRunHandler(handlers.Config{}, svc)
	case "status":
		h = handlers.NewStatusHandler(handlers.Config{}, svc)
	default:
		t.Fatalf("no handler for %s", event)
	}
	if err := h.Handle(t.Context(), event, "d", payload); err != nil {
		t.Fatalf("%s webhook: %v", event, err)
	}
	return svc
}

// restAPI is githubx reading the fake GitHub, where answers can be
// replaced (canned) and every answer is kept (bodies).
type restAPI struct {
	fake   *fakegithub.Server
	client *githubx.Client

	mu     sync.Mutex
	canned map[string][]byte // URL path → body served instead of the fake's
	bodies map[string][]byte // URL path → body of the last answer
}

func newRESTAPI(t *testing.T, ci fakegithub.CIOptions) *restAPI {
	t.Helper()
	fake, err := fakegithub.New(fakegithub.Options{CI: ci})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	api := &restAPI{fake: fake, canned: map[string][]byte{}, bodies: map[string][]byte{}}
	api.client, err = githubx.New(githubx.Config{V3APIURL: fake.URL() + "/", V4APIURL: fake.URL() + "/graphql",
		WebURL: fake.URL(), AppID: fake.AppID(), PrivateKey: fake.AppPrivateKeyPEM(), Host: "github.com"},
		githubx.WithTransport(api))
	if err != nil {
		t.Fatal(err)
	}
	return api
}

// RoundTrip implements http.RoundTripper.
func (a *restAPI) RoundTrip(req *http.Request) (*http.Response, error) {
	a.mu.Lock()
	body, ok := a.canned[req.URL.Path]
	a.mu.Unlock()
	if ok && req.Method == http.MethodGet {
		return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Request: req, ContentLength: int64(len(body)),
			Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(bytes.NewReader(body))}, nil
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet {
		return resp, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.bodies[req.URL.Path] = b
	a.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

// serve makes GET path answer body.
func (a *restAPI) serve(path string, body []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.canned[path] = body
}

// body is the last answer to GET path.
func (a *restAPI) body(t *testing.T, path string) []byte {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	b, ok := a.bodies[path]
	if !ok {
		t.Fatalf("no answer to GET %s was seen", path)
	}
	return b
}

// ensureRepo creates repo in the fake (its installation answers for it).
func (a *restAPI) ensureRepo(t *testing.T, repo queue.Repo) {
	t.Helper()
	if _, err := a.fake.BranchSHA(repo.Owner, repo.Name, "main"); err == nil {
		return
	}
	if err := a.fake.CreateRepo(repo.Owner, repo.Name, map[string]string{"README.md": "x\n"}); err != nil {
		t.Fatal(err)
	}
}

// example is one of GitHub's example payloads, decoded.
type example struct {
	name    string
	payload map[string]any
}

func loadExamples(t *testing.T, event string) []example {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(examplesDir, event, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s examples: %v", event, err)
	}
	var out []example
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, example{name: event + "/" + filepath.Base(f), payload: m})
	}
	return out
}

// variant is a copy of ex changed by edit.
func variant(t *testing.T, ex example, name string, edit func(m map[string]any)) example {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(mustJSON(t, ex.payload), &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	return example{name: ex.name + " " + name, payload: m}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// repoOf names the repository of a payload.
func repoOf(t *testing.T, payload map[string]any) queue.Repo {
	t.Helper()
	r := payload["repository"].(map[string]any)
	return queue.Repo{Host: "github.com", Owner: r["owner"].(map[string]any)["login"].(string), Name: r["name"].(string)}
}

// repositoryJSON is the repository member of a payload about repo.
func repositoryJSON(repo queue.Repo) map[string]any {
	return map[string]any{"name": repo.Name, "full_name": repo.FullName(), "owner": map[string]any{"login": repo.Owner}}
}

// TestPullRequestFactsAgree: a pull request object gives the same facts
// whether it arrives in a pull_request webhook or as the answer to GET
// pulls/{number}.
func TestPullRequestFactsAgree(t *testing.T) {
	t.Parallel()
	api := newRESTAPI(t, fakegithub.CIOptions{Disabled: true})
	for _, ex := range loadExamples(t, "pull_request") {
		t.Run(ex.name, func(t *testing.T) {
			repo := repoOf(t, ex.payload)
			api.ensureRepo(t, repo)
			object := ex.payload["pull_request"].(map[string]any)
			number := int(object["number"].(float64))
			ex.payload["action"] = "synchronize" // a fact action, whatever the example's
			hook := viaWebhook(t, "pull_request", mustJSON(t, ex.payload))
			api.serve("/repos/"+repo.FullName()+"/pulls/"+strconv.Itoa(number), mustJSON(t, object))
			rest, err := api.client.GetPullRequest(t.Context(), repo, number)
			if err != nil {
				t.Fatal(err)
			}
			if len(hook.prs) != 1 || !reflect.DeepEqual(hook.prs[0], *rest) {
				t.Errorf("webhook facts %+v\nREST facts    %+v", hook.prs, *rest)
			}
		})
	}

	// The fake GitHub's answers, sent back as webhooks: open, draft, from a
	// fork, merged and closed.
	repo := queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}
	api.ensureRepo(t, repo)
	open := openPR(t, api.fake, repo, fakegithub.PROptions{Head: "open", Body: "body"})
	draft := openPR(t, api.fake, repo, fakegithub.PROptions{Head: "draft", Draft: true})
	fork := openPR(t, api.fake, repo, fakegithub.PROptions{Head: "forked", HeadRepo: "someone/widgets"})
	merged := openPR(t, api.fake, repo, fakegithub.PROptions{Head: "merged"})
	if _, err := api.fake.MergePRManually(repo.Owner, repo.Name, merged, "octocat"); err != nil {
		t.Fatal(err)
	}
	closed := openPR(t, api.fake, repo, fakegithub.PROptions{Head: "closed"})
	if err := api.fake.ClosePR(repo.Owner, repo.Name, closed, "octocat"); err != nil {
		t.Fatal(err)
	}
	for name, number := range map[string]int{"open": open, "draft": draft, "fork": fork, "merged": merged, "closed": closed} {
		t.Run("fake/"+name, func(t *testing.T) {
			rest, err := api.client.GetPullRequest(t.Context(), repo, number)
			if err != nil {
				t.Fatal(err)
			}
			var object map[string]any
			if err := json.Unmarshal(api.body(t, "/repos/"+repo.FullName()+"/pulls/"+strconv.Itoa(number)), &object); err != nil {
				t.Fatal(err)
			}
			hook := viaWebhook(t, "pull_request", mustJSON(t, map[string]any{"action": "synchronize", "number": number,
				"pull_request": object, "repository": repositoryJSON(repo), "sender": map[string]any{"login": "octocat"}}))
			if len(hook.prs) != 1 || !reflect.DeepEqual(hook.prs[0], *rest) {
				t.Errorf("webhook facts %+v\nREST facts    %+v", hook.prs, *rest)
			}
		})
	}
}

// TestMergeCommitSHAIsALandedCommit: GitHub fills merge_commit_sha of an
// open pull request with its test merge, which never lands; the facts
// carry it only for a merged PR, on both paths.
func TestMergeCommitSHAIsALandedCommit(t *testing.T) {
	t.Parallel()
	api := newRESTAPI(t, fakegithub.CIOptions{Disabled: true})
	repo := queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}
	api.ensureRepo(t, repo)
	merged := openPR(t, api.fake, repo, fakegithub.PROptions{Head: "merged"})
	landed, err := api.fake.MergePRManually(repo.Owner, repo.Name, merged, "octocat")
	if err != nil {
		t.Fatal(err)
	}
	open := openPR(t, api.fake, repo, fakegithub.PROptions{Head: "open"})
	rendered, err := api.fake.PR(repo.Owner, repo.Name, open)
	if err != nil {
		t.Fatal(err)
	}
	const testMerge = "c4295bd74fb0f4fda03689c3df3f2803b658fd85"
	object := map[string]any{}
	if err := json.Unmarshal(mustJSON(t, rendered), &object); err != nil {
		t.Fatal(err)
	}
	object["merge_commit_sha"] = testMerge // as GitHub answers for an open PR
	api.serve("/repos/"+repo.FullName()+"/pulls/"+strconv.Itoa(open), mustJSON(t, object))

	for _, tt := range []struct {
		name   string
		number int
		want   string
	}{{"open PR with a test merge", open, ""}, {"merged PR", merged, landed}} {
		rest, err := api.client.GetPullRequest(t.Context(), repo, tt.number)
		if err != nil {
			t.Fatal(err)
		}
		if rest.MergeCommitSHA != tt.want {
			t.Errorf("%s: REST MergeCommitSHA = %q, want %q", tt.name, rest.MergeCommitSHA, tt.want)
		}
		answer := object
		if tt.number == merged {
			if err := json.Unmarshal(api.body(t, "/repos/"+repo.FullName()+"/pulls/"+strconv.Itoa(merged)), &answer); err != nil {
				t.Fatal(err)
			}
		}
		hook := viaWebhook(t, "pull_request", mustJSON(t, map[string]any{"action": "synchronize", "number": tt.number,
			"pull_request": answer, "repository": repositoryJSON(repo), "sender": map[string]any{"login": "octocat"}}))
		if len(hook.prs) != 1 || hook.prs[0].MergeCommitSHA != tt.want {
			t.Errorf("%s: webhook facts %+v, want MergeCommitSHA %q", tt.name, hook.prs, tt.want)
		}
	}
}

// TestCheckRunFactsAgree: a check run gives the same result whether it
// arrives in a check_run webhook or in the answer to GET
// commits/{sha}/check-runs.
func TestCheckRunFactsAgree(t *testing.T) {
	t.Parallel()
	api := newRESTAPI(t, fakegithub.CIOptions{Contexts: []string{}, CheckRuns: []string{"build", "lint"}})
	examples := loadExamples(t, "check_run")
	// GitHub leaves completed_at out of some completed runs.
	examples = append(examples, variant(t, examples[1], "without completed_at", func(m map[string]any) {
		delete(m["check_run"].(map[string]any), "completed_at")
	}))
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			repo := repoOf(t, ex.payload)
			api.ensureRepo(t, repo)
			object := ex.payload["check_run"].(map[string]any)
			// Some examples date their App "2018-04-25 20:42:10"; the REST
			// API (and go-github) write RFC 3339.
			for _, app := range []any{object["app"], object["check_suite"].(map[string]any)["app"]} {
				if app, ok := app.(map[string]any); ok {
					app["created_at"], app["updated_at"] = "2018-04-25T20:42:10Z", "2018-04-25T20:42:10Z"
				}
			}
			ex.payload["action"] = "completed" // one the handler records
			hook := viaWebhook(t, "check_run", mustJSON(t, ex.payload))
			sha := object["head_sha"].(string)
			prefix := "/repos/" + repo.FullName() + "/commits/" + sha
			api.serve(prefix+"/statuses", []byte(`[]`))
			api.serve(prefix+"/check-runs", mustJSON(t, map[string]any{"total_count": 1, "check_runs": []any{object}}))
			rest, err := api.client.Checks(t.Context(), repo, sha)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(hook.checks, rest) {
				t.Errorf("webhook result %+v\nREST result    %+v", hook.checks, rest)
			}
		})
	}

	// The fake CI's check runs, in progress and completed.
	repo := queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}
	api.ensureRepo(t, repo)
	api.fake.SetCIHold(true)
	sha, err := api.fake.PushToBranch(repo.Owner, repo.Name, "mq-merge/t", map[string]string{"a.txt": "a\n"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the CI's check runs", func() bool { return len(api.fake.CheckRuns(repo.Owner, repo.Name, sha)) == 2 })
	compareFakeCheckRuns(t, api, repo, sha)
	if err := api.fake.CompleteCI(repo.FullName(), sha, false); err != nil {
		t.Fatal(err)
	}
	compareFakeCheckRuns(t, api, repo, sha)
}

// compareFakeCheckRuns reads the check runs of sha through githubx and
// sends each object of the fake's answer as a check_run webhook.
func compareFakeCheckRuns(t *testing.T, api *restAPI, repo queue.Repo, sha string) {
	t.Helper()
	rest, err := api.client.Checks(t.Context(), repo, sha)
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		CheckRuns []map[string]any `json:"check_runs"`
	}
	if err := json.Unmarshal(api.body(t, "/repos/"+repo.FullName()+"/commits/"+sha+"/check-runs"), &answer); err != nil {
		t.Fatal(err)
	}
	var hooked []queue.CheckResult
	for _, object := range answer.CheckRuns {
		hook := viaWebhook(t, "check_run", mustJSON(t, map[string]any{"action": "completed", "check_run": object,
			"repository": repositoryJSON(repo), "sender": map[string]any{"login": "fake-ci[bot]"}}))
		hooked = append(hooked, hook.checks...)
	}
	sortChecks(hooked)
	if len(rest) != 2 || !reflect.DeepEqual(hooked, rest) {
		t.Errorf("webhook results %+v\nREST results    %+v", hooked, rest)
	}
}

// TestStatusFactsAgree: a commit status gives the same result whether it
// arrives in a status webhook or in the answer to GET
// commits/{sha}/statuses.
func TestStatusFactsAgree(t *testing.T) {
	t.Parallel()
	api := newRESTAPI(t, fakegithub.CIOptions{Contexts: []string{"ci/test", "ci/lint"}})
	examples := loadExamples(t, "status")
	examples = append(examples, variant(t, examples[0], "without updated_at", func(m map[string]any) {
		delete(m, "updated_at")
	}))
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			repo := repoOf(t, ex.payload)
			api.ensureRepo(t, repo)
			object := map[string]any{}
			for _, k := range []string{"id", "state", "description", "target_url", "context", "created_at", "updated_at"} {
				object[k] = ex.payload[k]
			}
			hook := viaWebhook(t, "status", mustJSON(t, ex.payload))
			sha := ex.payload["sha"].(string)
			prefix := "/repos/" + repo.FullName() + "/commits/" + sha
			api.serve(prefix+"/statuses", mustJSON(t, []any{object}))
			api.serve(prefix+"/check-runs", []byte(`{"total_count":0,"check_runs":[]}`))
			rest, err := api.client.Checks(t.Context(), repo, sha)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(hook.checks, rest) {
				t.Errorf("webhook result %+v\nREST result    %+v", hook.checks, rest)
			}
		})
	}

	// The fake CI's statuses, pending and completed.
	repo := queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}
	api.ensureRepo(t, repo)
	api.fake.SetCIHold(true)
	sha, err := api.fake.PushToBranch(repo.Owner, repo.Name, "mq-merge/t", map[string]string{"a.txt": "a\n"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the CI's statuses", func() bool { return len(api.fake.Statuses(repo.Owner, repo.Name, sha)) == 2 })
	compareFakeStatuses(t, api, repo, sha)
	if err := api.fake.CompleteCI(repo.FullName(), sha, true); err != nil {
		t.Fatal(err)
	}
	compareFakeStatuses(t, api, repo, sha)
}

// compareFakeStatuses reads the statuses of sha through githubx and sends
// the newest status of each context in the fake's answer as a status
// webhook.
func compareFakeStatuses(t *testing.T, api *restAPI, repo queue.Repo, sha string) {
	t.Helper()
	rest, err := api.client.Checks(t.Context(), repo, sha)
	if err != nil {
		t.Fatal(err)
	}
	var answer []map[string]any // newest first
	if err := json.Unmarshal(api.body(t, "/repos/"+repo.FullName()+"/commits/"+sha+"/statuses"), &answer); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var hooked []queue.CheckResult
	for _, object := range answer {
		if seen[object["context"].(string)] {
			continue
		}
		seen[object["context"].(string)] = true
		payload := map[string]any{"sha": sha, "repository": repositoryJSON(repo), "sender": map[string]any{"login": "fake-ci[bot]"}}
		for k, v := range object {
			payload[k] = v
		}
		hooked = append(hooked, viaWebhook(t, "status", mustJSON(t, payload)).checks...)
	}
	sortChecks(hooked)
	if len(rest) != 2 || !reflect.DeepEqual(hooked, rest) {
		t.Errorf("webhook results %+v\nREST results    %+v", hooked, rest)
	}
}

func openPR(t *testing.T, fake *fakegithub.Server, repo queue.Repo, p fakegithub.PROptions) int {
	t.Helper()
	if _, err := fake.PushToBranch(repo.Owner, repo.Name, p.Head, map[string]string{p.Head + ".txt": p.Head + "\n"}); err != nil {
		t.Fatal(err)
	}
	n, err := fake.OpenPR(repo.Owner, repo.Name, p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// sortChecks orders results as githubx.Client.Checks does: statuses
// first, then by name.
func sortChecks(cs []queue.CheckResult) {
	slices.SortFunc(cs, func(a, b queue.CheckResult) int {
		if a.Kind != b.Kind {
			if a.Kind == queue.KindStatus {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// waitFor polls cond until it holds, failing after a deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
