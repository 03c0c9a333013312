package githubx

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// recordingAPI answers every request 404 and records its escaped path.
type recordingAPI struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string
}

func newRecordingAPI(t *testing.T) *recordingAPI {
	t.Helper()
	r := &recordingAPI{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.Method+" "+req.URL.EscapedPath())
		r.mu.Unlock()
		ghError(w, http.StatusNotFound, "Not Found")
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recordingAPI) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

func (r *recordingAPI) client(t *testing.T) *Client {
	t.Helper()
	c, err := New(Config{V3APIURL: r.srv.URL + "/", V4APIURL: r.srv.URL + "/graphql", AppID: 123, PrivateKey: testKey(t)},
		WithRetryPolicy(RetryPolicy{Sleep: (&sleeps{}).sleep}))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// wantUnsafe checks that err refuses an unsafe path, is not transient, and
// that nothing reached GitHub.
func wantUnsafe(t *testing.T, api *recordingAPI, err error) {
	t.Helper()
	if !errors.Is(err, ErrUnsafePath) {
		t.Errorf("error = %v, want ErrUnsafePath", err)
	}
	if errors.Is(err, queue.ErrTransient) {
		t.Errorf("error %v is marked transient: it would be retried", err)
	}
	if got := api.requests(); len(got) != 0 {
		t.Errorf("requests sent: %q", got)
	}
}

// TestHostileNamesNeverReachGitHub calls every port method with names that
// would traverse out of the repository's path: each is refused before any
// request, the installation lookup included.
func TestHostileNamesNeverReachGitHub(t *testing.T) {
	t.Parallel()
	good := queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}
	var hostileRepos []queue.Repo
	for _, r := range []struct{ owner, name string }{
		{"acme/../evil", "widgets"},
		{"acme", "../../app/installations"},
		{"..", "installations"},
		{"app", ".."},
		{".", "widgets"},
		{"acme", "."},
		{"acme", "w\x00"},
		{"ac\nme", "widgets"},
		{"acme", "w\x7f"},
		{"acme", "w\u2028"},
		{"acme", "w\xff"},
		{"", "widgets"},
	} {
		hostileRepos = append(hostileRepos, queue.Repo{Host: "github.com", Owner: r.owner, Name: r.name})
	}
	const sha = "0123456789abcdef0123456789abcdef01234567"
	repoCalls := map[string]func(ctx context.Context, c *Client, repo queue.Repo) error{
		"InstallationClient": func(ctx context.Context, c *Client, repo queue.Repo) error {
			_, err := c.InstallationClient(ctx, repo)
			return err
		},
		"GetPullRequest": func(ctx context.Context, c *Client, repo queue.Repo) error {
			_, err := c.GetPullRequest(ctx, repo, 1)
			return err
		},
		"BranchHead": func(ctx context.Context, c *Client, repo queue.Repo) error {
			_, err := c.BranchHead(ctx, repo, "main")
			return err
		},
		"WorkflowRun": func(ctx context.Context, c *Client, repo queue.Repo) error {
			_, err := c.WorkflowRun(ctx, repo, 7)
			return err
		},
		"MergePullRequest": func(ctx context.Context, c *Client, repo queue.Repo) error {
			_, err := c.MergePullRequest(ctx, repo, 1, queue.MergeRequest{SHA: sha, Method: queue.Squash})
			return err
		},
		"UpsertComment": func(ctx context.Context, c *Client, repo queue.Repo) error {
			_, err := c.UpsertComment(ctx, repo, 1, 5, "hi")
			return err
		},
		"AddReaction": func(ctx context.Context, c *Client, repo queue.Repo) error {
			return c.AddReaction(ctx, repo, 5, "+1")
		},
		"UpsertCheckRun": func(ctx context.Context, c *Client, repo queue.Repo) error {
			_, err := c.UpsertCheckRun(ctx, repo, 0, queue.CheckRun{Name: "Merge Queue (main)", HeadSHA: sha})
			return err
		},
		"AddLabel": func(ctx context.Context, c *Client, repo queue.Repo) error {
			return c.AddLabel(ctx, repo, 1, "merge-queue")
		},
		"Permission": func(ctx context.Context, c *Client, repo queue.Repo) error {
			_, err := c.Permission(ctx, repo, "octocat")
			return err
		},
	}
	for name, call := range repoCalls {
		for _, repo := range hostileRepos {
			t.Run(name+"/"+repo.FullName(), func(t *testing.T) {
				t.Parallel()
				api := newRecordingAPI(t)
				wantUnsafe(t, api, call(context.Background(), api.client(t), repo))
			})
		}
	}

	// Other values that land in paths, on a valid repository.
	valueCalls := map[string]func(ctx context.Context, c *Client, v string) error{
		"BranchHead": func(ctx context.Context, c *Client, v string) error {
			_, err := c.BranchHead(ctx, good, v)
			return err
		},
		"RequiredChecks": func(ctx context.Context, c *Client, v string) error {
			_, err := c.RequiredChecks(ctx, good, v)
			return err
		},
		"DeleteBranch": func(ctx context.Context, c *Client, v string) error { return c.DeleteBranch(ctx, good, v) },
		"TreeSHA": func(ctx context.Context, c *Client, v string) error {
			_, err := c.TreeSHA(ctx, good, v)
			return err
		},
		"Checks": func(ctx context.Context, c *Client, v string) error {
			_, err := c.Checks(ctx, good, v)
			return err
		},
		"Contains": func(ctx context.Context, c *Client, v string) error {
			_, err := c.Contains(ctx, good, v, sha)
			return err
		},
		"DiffFiles": func(ctx context.Context, c *Client, v string) error {
			_, _, err := c.DiffFiles(ctx, good, sha, v)
			return err
		},
		"RemoveLabel": func(ctx context.Context, c *Client, v string) error { return c.RemoveLabel(ctx, good, 1, v) },
		"Permission": func(ctx context.Context, c *Client, v string) error {
			_, err := c.Permission(ctx, good, v)
			return err
		},
		"BuildBranch/temp": func(ctx context.Context, c *Client, v string) error {
			_, err := c.BuildBranch(ctx, good, queue.BranchSpec{From: sha, Temp: v, Name: "mq-merge/x"})
			return err
		},
		"BuildBranch/name": func(ctx context.Context, c *Client, v string) error {
			_, err := c.BuildBranch(ctx, good, queue.BranchSpec{From: sha, Temp: "mq-temp/x", Name: v})
			return err
		},
	}
	for name, call := range valueCalls {
		for _, v := range []string{"..", ".", "../../app/installations", "a/../../b", "a/./b", "a//b", "/a", "main\n", "a\x00", "a\u0085"} {
			t.Run(name+"/"+url.PathEscape(v), func(t *testing.T) {
				t.Parallel()
				api := newRecordingAPI(t)
				wantUnsafe(t, api, call(context.Background(), api.client(t), v))
			})
		}
	}
}

// TestPathGuardRefusesEncodedTraversal goes around the port's checks with
// the raw App client: encoded dot segments, which go-github does not
// resolve but a server or proxy might, never leave the process.
func TestPathGuardRefusesEncodedTraversal(t *testing.T) {
	t.Parallel()
	for _, owner := range []string{"%2e%2e", "%2E", "..%2F..%2Fapp%2Finstallations", "a%2F%2E%2E", "a%00", "a%0A"} {
		t.Run(owner, func(t *testing.T) {
			t.Parallel()
			api := newRecordingAPI(t)
			_, _, err := api.client(t).AppClient().Apps.FindRepositoryInstallation(context.Background(), owner, "widgets")
			wantUnsafe(t, api, err)
		})
	}
}

func TestCheckRequestPath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		path string
		ok   bool
	}{
		{"/repos/acme/widgets/pulls/1", true},
		{"/api/v3/repos/acme/.github/git/refs/heads/feature/x", true},
		{"/repos/acme/widgets/branches/feature%2Fx", true},
		{"/repos/acme/widgets/compare/main...feature%2Fx", true},
		{"/repos/acme/widgets/issues/1/labels/area%2Fapi", true},
		{"/repos/acme/widgets/issues/1/labels/%F0%9F%9A%80", true},
		{"/app", true},
		{"/repos/acme/../app/installations", false},
		{"/repos/./acme/widgets", false},
		{"/repos/%2e%2e/app", false},
		{"/repos/acme/%2E/x", false},
		{"/repos/..%2F..%2Fapp%2Finstallations/x", false},
		{"/repos/acme/widgets/branches/a%2F.%2Fb", false},
		{"/repos/acme/w%00", false},
		{"/repos/acme/w%0A", false},
		{"/repos/acme/w%7F", false},
		{"/repos/acme/w%C2%85", false},
		{"/repos/acme/w%FF", false},
		{"/repos/acme/w%zz", false},
	} {
		u, err := url.Parse("https://api.github.com" + tt.path)
		if err != nil {
			// A path url.Parse refuses never becomes a request either.
			if tt.ok {
				t.Errorf("%s: %v", tt.path, err)
			}
			continue
		}
		err = checkRequestPath(u)
		if (err == nil) != tt.ok {
			t.Errorf("checkRequestPath(%s) = %v, want ok=%v", tt.path, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrUnsafePath) {
			t.Errorf("checkRequestPath(%s) = %v, want ErrUnsafePath", tt.path, err)
		}
	}
}

// TestEscapedNamesReachTheirResource checks that names needing escapes
// (valid for GitHub or not) stay one segment: the request goes to the path
// meant, not a shorter one.
func TestEscapedNamesReachTheirResource(t *testing.T) {
	t.Parallel()
	api := newRecordingAPI(t)
	c := api.client(t)
	_, err := c.InstallationClient(context.Background(), queue.Repo{Host: "github.com", Owner: "a?b", Name: "w#x"})
	if err == nil || !errors.Is(err, ErrNotInstalled) {
		t.Errorf("error = %v, want ErrNotInstalled from a 404", err)
	}
	want := []string{"GET /repos/a%3Fb/w%23x/installation"}
	if got := api.requests(); len(got) != 1 || got[0] != want[0] {
		t.Errorf("requests = %q, want %q", got, want)
	}
	if escapeSegment("..") != "%2E%2E" || escapeSegment(".") != "%2E" || escapeSegment("a.b") != "a.b" {
		t.Errorf("escapeSegment does not encode dot-only segments")
	}
}
