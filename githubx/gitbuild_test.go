package githubx

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue"
)

// gitFixture is a fake GitHub holding acme/widgets, a client building with
// git against it and one with the merges API, and the tokens the fake
// minted for them.
type gitFixture struct {
	fake      *fakegithub.Server
	git, rest *Client
	repo      queue.Repo
	dir       string // the git builder's clones
	base      string // main's head
	tokens    *tokenRecorder
}

// tokenRecorder remembers the installation tokens GitHub minted and what
// they were asked for.
type tokenRecorder struct {
	base  http.RoundTripper
	mu    sync.Mutex
	seen  []string
	asked []string // request bodies
}

func (r *tokenRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(req.URL.Path, "/access_tokens") {
		return r.base.RoundTrip(req)
	}
	if req.Body != nil {
		asked, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		r.mu.Lock()
		r.asked = append(r.asked, string(asked))
		r.mu.Unlock()
		req.Body = io.NopCloser(strings.NewReader(string(asked)))
	}
	res, err := r.base.RoundTrip(req)
	if err != nil {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	var tok struct{ Token string }
	if json.Unmarshal(body, &tok) == nil && tok.Token != "" {
		r.mu.Lock()
		r.seen = append(r.seen, tok.Token)
		r.mu.Unlock()
	}
	res.Body = io.NopCloser(strings.NewReader(string(body)))
	return res, nil
}

func (r *tokenRecorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

func newGitFixture(t *testing.T) *gitFixture {
	t.Helper()
	fake, err := fakegithub.New(fakegithub.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	if err := fake.CreateRepo("acme", "widgets", map[string]string{"README.md": "hello\n", "a.txt": "a\n", "b.txt": "b\n"}); err != nil {
		t.Fatal(err)
	}
	f := &gitFixture{fake: fake, repo: queue.Repo{Host: queue.DefaultHost, Owner: "acme", Name: "widgets"}, dir: t.TempDir(),
		tokens: &tokenRecorder{base: http.DefaultTransport}}
	cfg := Config{V3APIURL: fake.URL() + "/", V4APIURL: fake.URL() + "/graphql", WebURL: fake.URL(),
		AppID: fake.AppID(), PrivateKey: fake.AppPrivateKeyPEM()}
	fast := WithRetryPolicy(RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }})
	if f.git, err = New(cfg, fast, WithTransport(f.tokens), WithGitBuilds(GitBuildConfig{Dir: f.dir})); err != nil {
		t.Fatal(err)
	}
	if f.rest, err = New(cfg, fast); err != nil {
		t.Fatal(err)
	}
	if f.base, err = fake.BranchSHA("acme", "widgets", "main"); err != nil {
		t.Fatal(err)
	}
	return f
}

// head pushes a PR-like branch changing files and returns its head.
func (f *gitFixture) head(t *testing.T, branch string, files map[string]string) string {
	t.Helper()
	sha, err := f.fake.Commit("acme", "widgets", branch, files, "change "+branch)
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

func (f *gitFixture) commit(t *testing.T, sha string) *struct {
	Parents []string
	Message string
	Tree    string
	Author  string
} {
	t.Helper()
	gh, err := f.rest.InstallationClient(t.Context(), f.repo)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := gh.Git.GetCommit(t.Context(), "acme", "widgets", sha)
	if err != nil {
		t.Fatalf("commit %s: %v", sha, err)
	}
	out := &struct {
		Parents []string
		Message string
		Tree    string
		Author  string
	}{Message: c.GetMessage(), Tree: c.GetTree().GetSHA(), Author: c.GetAuthor().GetName()}
	for _, p := range c.Parents {
		out.Parents = append(out.Parents, p.GetSHA())
	}
	return out
}

// contentWrites counts the content-creating REST and GraphQL requests.
func contentWrites(calls map[string]int) int {
	n := 0
	for k, v := range calls {
		if !strings.HasPrefix(k, "GET ") && !strings.HasPrefix(k, "GIT ") && !strings.Contains(k, "access_tokens") {
			n += v
		}
	}
	return n
}

// TestGitBuildMatchesTheMergesAPI: a git build makes the commits the
// merges API makes (parents in order, messages, trees), publishes the
// branch and deletes spec.Delete in one push after Publishing, and costs
// no content-creating request: no scratch ref, no merge, no ref write.
func TestGitBuildMatchesTheMergesAPI(t *testing.T) {
	f := newGitFixture(t)
	h1 := f.head(t, "pr1", map[string]string{"a.txt": "a from #1\n"})
	h2 := f.head(t, "pr2", map[string]string{"b.txt": "b from #2\n"})
	old := f.head(t, "mq-merge/pr-0/old", map[string]string{"c.txt": "old\n"})
	_ = old
	heads := []queue.MergeHead{{PRNumber: 1, SHA: h1, Message: "Merge #1 (one) into merge queue test branch"},
		{PRNumber: 2, SHA: h2, Message: "Merge #2 (two) into merge queue test branch"}}
	rest, err := f.rest.BuildBranch(t.Context(), f.repo, queue.BranchSpec{From: f.base, Heads: heads, Temp: "mq-temp/rest", Name: "rest-built"})
	if err != nil {
		t.Fatal(err)
	}
	before := f.fake.CallCounts()
	published := ""
	spec := queue.BranchSpec{From: f.base, Heads: heads, Temp: "mq-temp/lane", KeepTemp: true, Name: "mq-merge/pr-2/run",
		Delete: []string{"mq-merge/pr-0/old"},
		Publishing: func(_ context.Context, sha string) error {
			if slices.Contains(f.fake.Branches("acme", "widgets"), "mq-merge/pr-2/run") {
				t.Error("Publishing called after the branch was published")
			}
			published = sha
			return nil
		}}
	built, err := f.git.BuildBranch(t.Context(), f.repo, spec)
	if err != nil {
		t.Fatal(err)
	}
	if published != built.SHA {
		t.Fatalf("Publishing told %q, built %s", published, built.SHA)
	}
	if got, _ := f.fake.BranchSHA("acme", "widgets", "mq-merge/pr-2/run"); got != built.SHA {
		t.Fatalf("published branch at %q, want %s", got, built.SHA)
	}
	branches := f.fake.Branches("acme", "widgets")
	if slices.Contains(branches, "mq-merge/pr-0/old") || !slices.Equal(built.Deleted, spec.Delete) {
		t.Fatalf("deleted %v; branches left %v", built.Deleted, branches)
	}
	if slices.Contains(branches, "mq-temp/lane") {
		t.Fatal("a git build made a scratch ref on GitHub")
	}
	if built.Tree != rest.Tree || built.Tree == "" {
		t.Fatalf("git build's tree %s, the merges API's %s", built.Tree, rest.Tree)
	}
	top, restTop := f.commit(t, built.SHA), f.commit(t, rest.SHA)
	mid := f.commit(t, top.Parents[0])
	if !slices.Equal(top.Parents, []string{top.Parents[0], h2}) || !slices.Equal(mid.Parents, []string{f.base, h1}) {
		t.Fatalf("parents %v then %v, want [%s %s] then [<first> %s]", mid.Parents, top.Parents, f.base, h1, h2)
	}
	if top.Message != heads[1].Message || mid.Message != heads[0].Message || restTop.Message != top.Message {
		t.Fatalf("messages %q, %q (merges API: %q)", mid.Message, top.Message, restTop.Message)
	}
	if top.Author != fakegithub.BotLogin {
		t.Fatalf("merge commits by %q, want the App's bot %q", top.Author, fakegithub.BotLogin)
	}
	diff := map[string]int{}
	for k, v := range f.fake.CallCounts() {
		if d := v - before[k]; d != 0 {
			diff[k] = d
		}
	}
	if n := contentWrites(diff); n != 0 {
		t.Fatalf("a git build made %d content-creating requests: %v", n, diff)
	}
	if diff["GIT POST /{owner}/{repo}.git/git-receive-pack"] != 1 {
		t.Fatalf("want one push, calls %v", diff)
	}
}

// TestGitBuildConflictAtIndex: a head that does not merge is a
// *queue.ConflictError with its index, and nothing is published.
func TestGitBuildConflictAtIndex(t *testing.T) {
	f := newGitFixture(t)
	h1 := f.head(t, "pr1", map[string]string{"a.txt": "one\n"})
	h2 := f.head(t, "pr2", map[string]string{"b.txt": "two\n"})
	h3 := f.head(t, "pr3", map[string]string{"a.txt": "three\n"})
	spec := queue.BranchSpec{From: f.base, Temp: "mq-temp/x", Name: "mq-merge/pr-3/run", Heads: []queue.MergeHead{
		{PRNumber: 1, SHA: h1}, {PRNumber: 2, SHA: h2}, {PRNumber: 3, SHA: h3}}}
	_, err := f.git.BuildBranch(t.Context(), f.repo, spec)
	var ce *queue.ConflictError
	if !errors.As(err, &ce) || ce.Index != 2 || ce.SHA != h3 {
		t.Fatalf("err %v, want a conflict at index 2", err)
	}
	if slices.Contains(f.fake.Branches("acme", "widgets"), "mq-merge/pr-3/run") {
		t.Fatal("a conflicting build was published")
	}
	// A head already contained is skipped, as by GitHub: From itself.
	built, err := f.git.BuildBranch(t.Context(), f.repo, queue.BranchSpec{From: h1, Temp: "t", Name: "mq-merge/pr-1/run",
		Heads: []queue.MergeHead{{PRNumber: 1, SHA: h1}}})
	if err != nil || built.SHA != h1 {
		t.Fatalf("contained head: %+v %v, want %s", built, err, h1)
	}
}

// TestGitBuildProbeWritesNothing: a probe (no Name) merges locally and
// sends nothing to GitHub but the fetch.
func TestGitBuildProbeWritesNothing(t *testing.T) {
	f := newGitFixture(t)
	h1 := f.head(t, "pr1", map[string]string{"a.txt": "one\n"})
	before := f.fake.CallCounts()
	built, err := f.git.BuildBranch(t.Context(), f.repo, queue.BranchSpec{From: f.base, Temp: "mq-temp/lane", KeepTemp: true,
		TempAt: "elsewhere", Heads: []queue.MergeHead{{PRNumber: 1, SHA: h1, Message: "probe"}}})
	if err != nil || !isObjectID(built.SHA) || built.Tree == "" {
		t.Fatalf("probe: %+v %v", built, err)
	}
	after := f.fake.CallCounts()
	if after["GIT POST /{owner}/{repo}.git/git-receive-pack"] != before["GIT POST /{owner}/{repo}.git/git-receive-pack"] {
		t.Fatal("a probe pushed")
	}
	if slices.Contains(f.fake.Branches("acme", "widgets"), "mq-temp/lane") {
		t.Fatal("a probe made a scratch ref")
	}
}

// TestGitBuildConcurrentQueues: two queues of one repository build at
// once, each its own branches, all published where they belong.
func TestGitBuildConcurrentQueues(t *testing.T) {
	f := newGitFixture(t)
	const perQueue = 3
	var heads []string
	for i := range 2 * perQueue {
		heads = append(heads, f.head(t, fmt.Sprintf("pr%d", i), map[string]string{fmt.Sprintf("f%d.txt", i): "x\n"}))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*perQueue)
	built := make([]queue.Built, 2*perQueue)
	for q := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := q * perQueue; i < (q+1)*perQueue; i++ {
				b, err := f.git.BuildBranch(context.Background(), f.repo, queue.BranchSpec{From: f.base, Temp: fmt.Sprintf("lane%d", q),
					KeepTemp: true, Name: fmt.Sprintf("mq-merge/pr-%d/run", i), Heads: []queue.MergeHead{{PRNumber: i, SHA: heads[i]}}})
				built[i] = b
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, b := range built {
		got, err := f.fake.BranchSHA("acme", "widgets", fmt.Sprintf("mq-merge/pr-%d/run", i))
		if err != nil || got != b.SHA {
			t.Fatalf("branch %d at %s (%v), built %s", i, got, err, b.SHA)
		}
		if c := f.commit(t, b.SHA); !slices.Equal(c.Parents, []string{f.base, heads[i]}) {
			t.Fatalf("build %d has parents %v", i, c.Parents)
		}
	}
}

// TestGitBuildServerErrorsAreTransient: a fetch or push answered 5xx is
// queue.ErrTransient and publishes nothing; a 404 is not transient; once
// GitHub answers again the build goes through.
func TestGitBuildServerErrorsAreTransient(t *testing.T) {
	f := newGitFixture(t)
	h1 := f.head(t, "pr1", map[string]string{"a.txt": "one\n"})
	spec := queue.BranchSpec{From: f.base, Temp: "t", Name: "mq-merge/pr-1/run", Heads: []queue.MergeHead{{PRNumber: 1, SHA: h1}}}
	for _, fault := range []fakegithub.Fault{
		{PathContains: "git-upload-pack", Status: http.StatusServiceUnavailable},
		{PathContains: "git-receive-pack", Method: "POST", Status: http.StatusBadGateway},
		{PathContains: "info/refs", Status: http.StatusInternalServerError},
	} {
		f.fake.InjectFault(fault)
		_, err := f.git.BuildBranch(t.Context(), f.repo, spec)
		if !errors.Is(err, queue.ErrTransient) {
			t.Fatalf("%s answering %d: err %v, want transient", fault.PathContains, fault.Status, err)
		}
		if slices.Contains(f.fake.Branches("acme", "widgets"), "mq-merge/pr-1/run") {
			t.Fatalf("published despite the %d", fault.Status)
		}
	}
	f.fake.InjectFault(fakegithub.Fault{PathContains: "git-receive-pack", Status: http.StatusNotFound})
	if _, err := f.git.BuildBranch(t.Context(), f.repo, spec); err == nil || errors.Is(err, queue.ErrTransient) {
		t.Fatalf("404: err %v, want a permanent error", err)
	}
	built, err := f.git.BuildBranch(t.Context(), f.repo, spec)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := f.fake.BranchSHA("acme", "widgets", "mq-merge/pr-1/run"); got != built.SHA {
		t.Fatalf("published at %s, built %s", got, built.SHA)
	}
}

// TestGitBuildTokenNeverInArgvOrOnDisk: the installation token git uses
// is in no git command line and in no file of the clones.
func TestGitBuildTokenNeverInArgvOrOnDisk(t *testing.T) {
	argv := filepath.Join(t.TempDir(), "argv.log")
	wrapGit(t, fmt.Sprintf("printf '%%s\\n' \"$*\" >> %q\nexec %q \"$@\"\n", argv, realGit(t)))
	f := newGitFixture(t)
	h1 := f.head(t, "pr1", map[string]string{"a.txt": "one\n"})
	if _, err := f.git.BuildBranch(t.Context(), f.repo, queue.BranchSpec{From: f.base, Temp: "t", Name: "mq-merge/pr-1/run",
		Heads: []queue.MergeHead{{PRNumber: 1, SHA: h1}}, Delete: []string{"pr1"}}); err != nil {
		t.Fatal(err)
	}
	tokens := f.tokens.all()
	if len(tokens) == 0 {
		t.Fatal("no installation token minted")
	}
	// The token git sees is scoped to the repository and to contents.
	f.tokens.mu.Lock()
	asked := slices.Clone(f.tokens.asked)
	f.tokens.mu.Unlock()
	if !slices.ContainsFunc(asked, func(b string) bool {
		return strings.Contains(b, `"repositories":["widgets"]`) && strings.Contains(b, `"permissions":{"contents":"write"}`)
	}) {
		t.Fatalf("tokens asked for %q, want one scoped to widgets and contents: write", asked)
	}
	logged, err := os.ReadFile(argv)
	if err != nil || !strings.Contains(string(logged), "push") {
		t.Fatalf("git's argument lists were not logged: %v %q", err, logged)
	}
	secrets := []string{}
	for _, tok := range tokens {
		secrets = append(secrets, tok, base64.StdEncoding.EncodeToString([]byte("x-access-token:"+tok)))
	}
	check := func(where, text string) {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Fatalf("the token is in %s", where)
			}
		}
	}
	check("git's argument lists", string(logged))
	err = filepath.WalkDir(f.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		check(path, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGitBuildsRefuseOldGit: a git without merge-tree --write-tree is
// refused when the client is made, with the version it needs.
func TestGitBuildsRefuseOldGit(t *testing.T) {
	wrapGit(t, "echo 'git version 2.37.1'\n")
	_, err := New(Config{AppID: 1, PrivateKey: testKey(t)}, WithGitBuilds(GitBuildConfig{Dir: t.TempDir()}))
	if err == nil || !strings.Contains(err.Error(), "2.38") || !strings.Contains(err.Error(), "2.37") {
		t.Fatalf("err %v, want git 2.38 asked for", err)
	}
}

func realGit(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	return p
}

// wrapGit puts a shell script named git first on PATH.
func wrapGit(t *testing.T, script string) {
	t.Helper()
	realGit(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte("#!/bin/sh\n"+script), 0o700); err != nil { //nolint:gosec // an executable
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestGitBuildBoundsTheClone: the clone keeps refs to the newest fetched
// commits only, and its garbage is collected every gcEvery builds: what
// the fetches brought (small fetches are stored loose) ends up in one
// pack; the merge commits, no longer referenced, stay loose until they
// are older than gitPruneAge.
func TestGitBuildBoundsTheClone(t *testing.T) {
	f := newGitFixture(t)
	f.git.git.gcEvery = 3
	var heads []string
	for i := range 3 {
		heads = append(heads, f.head(t, fmt.Sprintf("pr%d", i), map[string]string{fmt.Sprintf("f%d.txt", i): "x\n"}))
	}
	build := func(i int) {
		t.Helper()
		if _, err := f.git.BuildBranch(t.Context(), f.repo, queue.BranchSpec{From: f.base, Temp: "t", Name: fmt.Sprintf("mq-merge/pr-%d/run", i),
			Heads: []queue.MergeHead{{PRNumber: i, SHA: heads[i]}}}); err != nil {
			t.Fatal(err)
		}
	}
	build(0)
	cl, err := f.git.git.clone(t.Context(), f.repo)
	if err != nil {
		t.Fatal(err)
	}
	cl.fetchMu.Lock()
	cl.keepMax = 2
	cl.fetchMu.Unlock()
	git := func(args ...string) string {
		out, err := runGit(t.Context(), gitRun{dir: cl.path}, args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	build(1)
	if counts := git("count-objects", "-v"); !strings.Contains(counts, "\npacks: 0\n") {
		t.Fatalf("the clone was packed before its garbage collection:\n%s", counts)
	}
	build(2)
	kept := strings.Fields(git("for-each-ref", "--format=%(refname)", keepRefPrefix))
	if len(kept) != 2 || !slices.Contains(kept, keepRefPrefix+heads[2]) {
		t.Fatalf("kept refs %v, want the two newest", kept)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		counts := git("count-objects", "-v")
		if strings.Contains(counts, "\npacks: 1\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no garbage collection after %d builds:\n%s", f.git.git.gcEvery, counts)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestGitPushesAskThePushGuard: git pushes do not pass through the
// client's HTTP middleware, so GitBuildConfig.PushGuard is asked before
// each (a replica that lost its queue's lease must not publish a test
// branch or move the target): refused, nothing is pushed and the guard's
// error is the build's and the fast-forward's.
func TestGitPushesAskThePushGuard(t *testing.T) {
	f := newGitFixture(t)
	h1 := f.head(t, "pr1", map[string]string{"a.txt": "guarded\n"})
	refusal := errors.New("the lease is lost")
	cfg := Config{V3APIURL: f.fake.URL() + "/", V4APIURL: f.fake.URL() + "/graphql", WebURL: f.fake.URL(),
		AppID: f.fake.AppID(), PrivateKey: f.fake.AppPrivateKeyPEM()}
	guarded, err := New(cfg, WithGitBuilds(GitBuildConfig{Dir: t.TempDir(),
		PushGuard: func(context.Context) (context.Context, context.CancelFunc, error) { return nil, nil, refusal }}))
	if err != nil {
		t.Fatal(err)
	}
	pushes := func() int { return f.fake.CallCounts()["GIT POST /{owner}/{repo}.git/git-receive-pack"] }
	before := pushes()
	_, err = guarded.BuildBranch(t.Context(), f.repo, queue.BranchSpec{From: f.base, Temp: "mq-temp/lane", KeepTemp: true,
		Name: "mq-merge/pr-1/guarded", Heads: []queue.MergeHead{{PRNumber: 1, SHA: h1, Message: "Merge #1"}}})
	if !errors.Is(err, refusal) {
		t.Fatalf("build under a refusing guard: %v; want the guard's error", err)
	}
	if err := guarded.FastForward(t.Context(), f.repo, "main", f.base, h1); !errors.Is(err, refusal) {
		t.Fatalf("fast-forward under a refusing guard: %v; want the guard's error", err)
	}
	if n := pushes() - before; n != 0 {
		t.Fatalf("%d pushes reached GitHub past the guard", n)
	}
	if slices.Contains(f.fake.Branches("acme", "widgets"), "mq-merge/pr-1/guarded") {
		t.Fatal("the test branch was published past the guard")
	}
	if head, _ := f.fake.BranchSHA("acme", "widgets", "main"); head != f.base {
		t.Fatalf("main moved to %s past the guard", head)
	}
}
