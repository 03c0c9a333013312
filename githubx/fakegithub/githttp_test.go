package fakegithub

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitClient runs a real git client against the fake's smart HTTP
// protocol, authenticated with token ("" = none).
type gitClient struct {
	t     *testing.T
	dir   string
	token string
}

func newGitClient(t *testing.T, token string) *gitClient {
	t.Helper()
	g := &gitClient{t: t, dir: t.TempDir(), token: token}
	g.must("init", "-q", "-b", "main")
	return g
}

// run runs git and returns its combined output and whether it succeeded.
func (g *gitClient) run(args ...string) (string, bool) {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	full := []string{"-C", g.dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}
	if g.token != "" {
		basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + g.token))
		full = append(full, "-c", "http.extraHeader=Authorization: Basic "+basic)
	}
	cmd := exec.CommandContext(ctx, "git", append(full, args...)...)
	cmd.Env = baseEnv()
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func (g *gitClient) must(args ...string) string {
	g.t.Helper()
	out, ok := g.run(args...)
	if !ok {
		g.t.Fatalf("git %s: %s", strings.Join(args, " "), out)
	}
	return strings.TrimSpace(out)
}

func gitURL(s *Server) string { return s.URL() + "/" + testOwner + "/" + testRepo + ".git" }

// TestGitSmartHTTPPushIsARefWrite: a push over git's smart HTTP protocol
// moves branches as the REST API does (push webhook, PR synchronize, CI on
// test branches), commits can be fetched by SHA, and a push is no
// content-creating request: exhausted secondary limits do not refuse it.
func TestGitSmartHTTPPushIsARefWrite(t *testing.T) {
	s := newServer(t, Options{})
	s.SetCIHold(true)
	if _, err := s.PushToBranch(testOwner, testRepo, "feature", map[string]string{"f.txt": "one\n"}); err != nil {
		t.Fatal(err)
	}
	pr, err := s.OpenPR(testOwner, testRepo, PROptions{Head: "feature"})
	if err != nil {
		t.Fatal(err)
	}
	head, err := s.BranchSHA(testOwner, testRepo, "feature")
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(t, s)
	// Every content-creating request is refused from now on.
	s.SetSecondaryLimits(&SecondaryLimits{WritesPerMinute: 1, WritesPerHour: 1, Concurrent: 100, PointsPerMinute: 1000})
	g := newGitClient(t, s.IssueToken())
	g.must("fetch", "-q", gitURL(s), head)
	if got := g.must("rev-parse", "FETCH_HEAD"); got != head {
		t.Fatalf("fetched %s, want the PR head %s", got, head)
	}
	g.must("checkout", "-q", "FETCH_HEAD")
	if err := os.WriteFile(filepath.Join(g.dir, "g.txt"), []byte("two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g.must("add", "g.txt")
	g.must("commit", "-q", "-m", "second")
	next := g.must("rev-parse", "HEAD")
	before := len(s.Deliveries())
	g.must("push", "-q", "--atomic", gitURL(s), "HEAD:refs/heads/feature", "HEAD:refs/heads/mq-merge/pr-1/run")
	for _, b := range []string{"feature", "mq-merge/pr-1/run"} {
		if got, err := s.BranchSHA(testOwner, testRepo, b); err != nil || got != next {
			t.Fatalf("branch %s at %s (%v), want %s", b, got, err, next)
		}
	}
	waitIdle(t, s)
	var events []string
	for _, d := range s.Deliveries()[before:] {
		events = append(events, d.Event+"/"+d.Action)
	}
	if !slices.Contains(events, "push/") || !slices.Contains(events, "pull_request/synchronize") {
		t.Fatalf("push delivered %v, want a push and a synchronize", events)
	}
	p, err := s.PR(testOwner, testRepo, pr)
	if err != nil || p.GetHead().GetSHA() != next {
		t.Fatalf("PR head %s (%v), want %s", p.GetHead().GetSHA(), err, next)
	}
	if !slices.ContainsFunc(s.PendingCI(), func(r CIRun) bool { return r.Branch == "mq-merge/pr-1/run" && r.SHA == next }) {
		t.Fatalf("no CI run on the pushed test branch: %v", s.PendingCI())
	}
	if n := s.Calls("GIT POST /{owner}/{repo}.git/git-receive-pack"); n != 1 {
		t.Fatalf("receive-pack calls %d, want 1", n)
	}
	// Deleting over git is a ref write too.
	g.must("push", "-q", gitURL(s), ":refs/heads/mq-merge/pr-1/run")
	if slices.Contains(s.Branches(testOwner, testRepo), "mq-merge/pr-1/run") {
		t.Fatal("deleted branch still there")
	}
}

// TestGitSmartHTTPNeedsAToken: without a token, or with a wrong one, the
// fake answers 401 and applies nothing.
func TestGitSmartHTTPNeedsAToken(t *testing.T) {
	s := newServer(t, Options{})
	main, err := s.BranchSHA(testOwner, testRepo, "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{"", "ghs_wrongwrongwrongwrongwrongwrongwrong"} {
		g := newGitClient(t, token)
		if out, ok := g.run("fetch", "-q", gitURL(s), main); ok {
			t.Fatalf("fetch with token %q: ok=%v %s", token, ok, out)
		}
		g.must("commit", "-q", "--allow-empty", "-m", "x")
		if out, ok := g.run("push", "-q", gitURL(s), "HEAD:refs/heads/intruder"); ok {
			t.Fatalf("push with token %q accepted: %s", token, out)
		}
	}
	if slices.Contains(s.Branches(testOwner, testRepo), "intruder") {
		t.Fatal("a push without a valid token created a branch")
	}
}

// TestGitSmartHTTPAtomicPushRefusesAll: with --atomic, one stale update
// refuses the whole push.
func TestGitSmartHTTPAtomicPushRefusesAll(t *testing.T) {
	s := newServer(t, Options{})
	token := s.IssueToken()
	g := newGitClient(t, token)
	main, err := s.BranchSHA(testOwner, testRepo, "main")
	if err != nil {
		t.Fatal(err)
	}
	g.must("fetch", "-q", gitURL(s), main)
	g.must("checkout", "-q", "FETCH_HEAD")
	g.must("commit", "-q", "--allow-empty", "-m", "x")
	moved, err := s.PushToBranch(testOwner, testRepo, "side", map[string]string{"s.txt": "s\n"})
	if err != nil {
		t.Fatal(err)
	}
	// The lease says "side" is at main: stale, so nothing is applied.
	out, ok := g.run("push", "--atomic", "--force-with-lease=refs/heads/side:"+main, gitURL(s),
		"HEAD:refs/heads/new-branch", "HEAD:refs/heads/side")
	if ok {
		t.Fatalf("stale atomic push accepted: %s", out)
	}
	if slices.Contains(s.Branches(testOwner, testRepo), "new-branch") {
		t.Fatal("an atomic push applied part of its updates")
	}
	if got, _ := s.BranchSHA(testOwner, testRepo, "side"); got != moved {
		t.Fatalf("side moved to %s", got)
	}
	// The server checks too: two deletions, one of them stale, sent as
	// they are on the wire.
	body := pktLine(moved+" "+zeroSHA+" refs/heads/side\x00report-status atomic\n") +
		pktLine(moved+" "+zeroSHA+" refs/heads/main\n") + "0000"
	for _, tok := range []string{"", token} {
		req, err := http.NewRequest(http.MethodPost, gitURL(s)+"/git-receive-pack", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-git-receive-pack-request")
		if tok != "" {
			req.SetBasicAuth("x-access-token", tok)
		}
		res, err := testHTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		report, _ := io.ReadAll(res.Body)
		res.Body.Close()
		switch {
		case tok == "" && res.StatusCode != http.StatusUnauthorized:
			t.Fatalf("push without a token: %d %s", res.StatusCode, report)
		case tok != "" && (!strings.Contains(string(report), "ng refs/heads/main stale info") ||
			!strings.Contains(string(report), "ng refs/heads/side atomic push failed")):
			t.Fatalf("stale atomic push answered %d %q", res.StatusCode, report)
		}
	}
	if !slices.Contains(s.Branches(testOwner, testRepo), "side") || !slices.Contains(s.Branches(testOwner, testRepo), "main") {
		t.Fatal("a refused push deleted a branch")
	}
}

// FuzzReadPushCommands: the command list of a push never panics, and a
// parsed command is well formed.
func FuzzReadPushCommands(f *testing.F) {
	f.Add(pktLine(zeroSHA+" "+strings.Repeat("a", 40)+" refs/heads/x\x00report-status atomic\n") + "0000")
	f.Add("0000")
	f.Add("00zz")
	f.Add(pktLine("short") + "0000")
	f.Fuzz(func(t *testing.T, in string) {
		cmds, caps, err := readPushCommands(bufio.NewReader(strings.NewReader(in)))
		if err != nil {
			return
		}
		if caps == nil || len(cmds) == 0 {
			t.Fatal("success without commands")
		}
		for _, c := range cmds {
			if len(c.Old) != 40 || len(c.New) != 40 || c.Ref == "" || strings.Contains(c.Ref, " ") {
				t.Fatalf("bad command %+v", c)
			}
		}
	})
}

// FuzzParseGitPath: a smart HTTP path is recognised only as
// /<owner>/<repo>[.git]/<service>, with a non-empty owner and name.
func FuzzParseGitPath(f *testing.F) {
	for _, p := range []string{"/acme/widgets.git/info/refs", "/acme/widgets/git-upload-pack", "/acme/.git/git-receive-pack",
		"/repos/acme/widgets", "//x/info/refs", "/a/b/c/info/refs"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		gr, ok := parseGitPath(p)
		if !ok {
			return
		}
		if gr.owner == "" || gr.name == "" || strings.Contains(gr.owner, "/") || strings.Contains(gr.name, "/") ||
			!slices.Contains([]string{"info/refs", "git-upload-pack", "git-receive-pack"}, gr.op) {
			t.Fatalf("%q parsed as %+v", p, gr)
		}
	})
}
