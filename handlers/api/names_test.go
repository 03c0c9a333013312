package api

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// opExtras are the members each POST operation needs besides repo and
// targetBranch for its request to be valid.
var opExtras = map[string]map[string]any{
	"submitPullRequest":           {"pr": map[string]any{"number": 12}},
	"cancelPullRequest":           {"pr": map[string]any{"number": 12}},
	"restartTestsOnPullRequest":   {"pr": map[string]any{"number": 12}},
	"getSubmittedPullRequest":     {"pr": map[string]any{"number": 12}},
	"setImpactedTargets":          {"pr": map[string]any{"number": 12, "sha": testSHA}, "impactedTargets": []string{"//a"}},
	"getMergeQueueTestingDetails": {"testRunId": "3f2c"},
	"createQueue":                 {"concurrency": 2},
	"deleteQueue":                 {},
	"getQueue":                    {},
	"updateQueue":                 {"concurrency": 2},
	"listPullRequests":            {"take": 10},
}

// namedBody is a valid request for op with one of the names replaced.
func namedBody(t *testing.T, op, field, value string) string {
	t.Helper()
	repo := map[string]any{"host": "github.com", "owner": "octo", "name": "widgets"}
	m := map[string]any{"repo": repo, "targetBranch": "main"}
	for k, v := range opExtras[op] {
		m[k] = v
	}
	switch field {
	case "targetBranch":
		m["targetBranch"] = value
	default:
		repo[strings.TrimPrefix(field, "repo.")] = value
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hostileNames holds, per field, values the naming rules refuse.
var hostileNames = map[string][]string{
	"repo.host":    {"github.com/../app", "github.com\x00", "github.com\n", "-github.com", "github.com:0"},
	"repo.owner":   {"acme/../evil", "..", "a%2Fb", "a\x00", "a\nb", "acme\u202e", "-acme", strings.Repeat("a", 40)},
	"repo.name":    {"../../app/installations", "..", ".", "w%2F..", "w\x00", "w\r\n", "\u202ewidgets", strings.Repeat("r", 101)},
	"targetBranch": {"a..b", "../../app/installations", "x.lock", "main@{1}", "-x", "/main", "main\x00", "main\n", "main\u202e", ".hidden", "@", strings.Repeat("b", 256)},
}

// TestEveryOperationRefusesHostileNames sends every POST operation a
// request valid but for one name: each is 400 naming the field, and the
// service is never called (it would panic: a 500).
func TestEveryOperationRefusesHostileNames(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.svc.configure(func(f *fakeService) { f.panicMsg = "the service must not be reached" })
	for _, op := range operations() {
		if _, ok := opExtras[op]; !ok {
			continue // getMergeQueueMetrics: see below
		}
		for field, values := range hostileNames {
			for _, v := range values {
				t.Run(op+"/"+field+"/"+url.PathEscape(v), func(t *testing.T) {
					t.Parallel()
					wantError(t, h.post(op, namedBody(t, op, field, v)), http.StatusBadRequest, "invalid field "+field+": ")
				})
			}
		}
	}
	if len(opExtras) != len(operations())-1 {
		t.Errorf("opExtras covers %d operations, want every POST operation (%d)", len(opExtras), len(operations())-1)
	}
}

func TestValidNamesStillAccepted(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, tt := range []struct{ field, value string }{
		{"repo.owner", "octocat_acme"},
		{"repo.name", ".github"},
		{"repo.name", "My_Repo-2.0"},
		{"targetBranch", "release/v1.2"},
		{"targetBranch", "fix/ünïcödé"},
		{"targetBranch", "a@b"},
	} {
		t.Run(tt.field+"/"+tt.value, func(t *testing.T) {
			t.Parallel()
			wantEmptyObject(t, h.post("createQueue", namedBody(t, "createQueue", tt.field, tt.value)))
		})
	}
}

func TestMetricsRefusesHostileNames(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.svc.configure(func(f *fakeService) { f.panicMsg = "the service must not be reached" })
	for _, tt := range []struct {
		query url.Values
		want  string
	}{
		{url.Values{"repoHost": {"github.com/../app"}}, "invalid parameter repoHost: host must hold only"},
		{url.Values{"repoHost": {"git\nhub.com"}}, "invalid parameter repoHost"},
		{url.Values{"repoHost": {"github.com"}, "repo": {"../evil"}}, "invalid parameter repo: owner must hold only"},
		{url.Values{"repoHost": {"github.com"}, "repo": {"acme/.."}}, `invalid parameter repo: name must not be "." or ".."`},
		{url.Values{"repoHost": {"github.com"}, "repo": {"acme/w\x00"}}, "invalid parameter repo: name"},
		{url.Values{"repoHost": {"github.com"}, "repo": {"-acme/w"}}, "invalid parameter repo: owner must not start or end with a hyphen"},
		{url.Values{"repoHost": {"github.com"}, "repo": {"acme\u202e/w"}}, "invalid parameter repo: owner"},
	} {
		t.Run(tt.query.Encode(), func(t *testing.T) {
			t.Parallel()
			r := h.do(http.MethodGet, "/v1/getMergeQueueMetrics?"+tt.query.Encode(), secretAll, nil)
			wantError(t, r, http.StatusBadRequest, tt.want)
		})
	}
}

// TestSetImpactedTargetsReadsThePROnce: a token request asks the service
// to read the PR from GitHub (VerifyPR); a forked run's request does not,
// its confirmation having read it.
func TestSetImpactedTargetsReadsThePROnce(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		headers map[string]string
		verify  bool
	}{
		{"token", map[string]string{TokenHeader: secretAll}, true},
		{"forked run", map[string]string{ForkedRunHeader: "4242"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			wantEmptyObject(t, h.forkedRequest(targetsBody("12", testSHA, `[]`), tt.headers))
			var got []queue.TargetsUpdate
			h.svc.recorded(func(m *moreFakes) { got = m.targets })
			if len(got) != 1 || got[0].VerifyPR != tt.verify {
				t.Errorf("updates = %+v, want one with VerifyPR %v", got, tt.verify)
			}
		})
	}
}
