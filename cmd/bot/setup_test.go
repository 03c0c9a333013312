package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers"
)

// setupBound bounds each wait of the setup tests: generous for a busy
// machine running -race.
const setupBound = 60 * time.Second

// lockedBuffer is a bytes.Buffer a command writes while a test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// runningBot is one `bot` command run in-process in the background.
type runningBot struct {
	stdout, stderr lockedBuffer
	code           chan int
}

func startBot(ctx context.Context, args ...string) *runningBot {
	b := &runningBot{code: make(chan int, 1)}
	go func() { b.code <- run(ctx, args, &b.stdout, &b.stderr) }()
	return b
}

// exitCode waits for the command to end.
func (b *runningBot) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case code := <-b.code:
		return code
	case <-time.After(setupBound):
		t.Fatalf("the command did not end within %v; stdout:\n%s\nstderr:\n%s", setupBound, b.stdout.String(), b.stderr.String())
		return -1
	}
}

// waitOutput waits until stdout matches re and returns its first group.
func (b *runningBot) waitOutput(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	var m []string
	waitFor(t, "output matching "+re.String(), func() bool {
		m = re.FindStringSubmatch(b.stdout.String())
		return m != nil
	}, func() string { return "stdout:\n" + b.stdout.String() + "\nstderr:\n" + b.stderr.String() })
	return m[1]
}

// waitFor polls cond until it holds, failing the test after setupBound.
func waitFor(t *testing.T, what string, cond func() bool, explain func() string) {
	t.Helper()
	deadline := time.Now().Add(setupBound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s\n%s", setupBound, what, explain())
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not a wait for an outcome
	}
}

// clearMQEnv keeps the developer's MQ_* settings away from in-process
// commands (an empty variable counts as unset).
func clearMQEnv(t *testing.T) {
	t.Helper()
	for _, v := range []string{app.EnvWebhookSecret, app.EnvAppID, app.EnvPrivateKey, app.EnvPrivateKeyPath,
		app.EnvDatabasePath, app.EnvServerAddress, app.EnvPublicURL, app.EnvLogLevel} {
		t.Setenv(v, "")
	}
}

var (
	formAction   = regexp.MustCompile(`<form action="([^"]+)" method="post">`)
	formManifest = regexp.MustCompile(`name="manifest" value="([^"]+)"`)
)

// submitSetupForm does what a person does in a browser: open the setup
// page, press its button (post the manifest to GitHub), follow GitHub's
// redirect back to the setup. It returns the last page's status and body.
func submitSetupForm(t *testing.T, pageURL string) (int, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Timeout: setupBound, Jar: jar}
	resp, err := browser.Get(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	action, manifest := formAction.FindStringSubmatch(string(page)), formManifest.FindStringSubmatch(string(page))
	if action == nil || manifest == nil {
		t.Fatalf("the setup page has no manifest form:\n%s", page)
	}
	resp, err = browser.PostForm(htmlUnescape(action[1]), url.Values{"manifest": {htmlUnescape(manifest[1])}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// htmlUnescape undoes html/template's escaping of an attribute value.
func htmlUnescape(s string) string {
	return strings.NewReplacer("&#34;", `"`, "&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#39;", "'", "&#43;", "+").Replace(s)
}

// `bot setup` against the fake GitHub writes a config with which `bot
// serve` starts and merges a PR queued by a `/mq merge` comment: the App
// is the one the manifest flow created (its id, key and webhook secret).
func TestSetupThenServeMergesAPR(t *testing.T) {
	clearMQEnv(t)
	t.Setenv(app.EnvLogLevel, "warn")
	fake, err := fakegithub.New(fakegithub.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	botAddr, err := freeLoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yml")
	oldApp := fake.AppID()

	setup := startBot(t.Context(), "setup", "--config", cfgPath, "--public-url", "http://"+botAddr,
		"--address", botAddr, "--github-url", fake.URL(), "--api-url", fake.URL()+"/", "--org", "demo")
	pageURL := setup.waitOutput(t, regexp.MustCompile(`Open (http://127\.0\.0\.1:\d+/) in a browser`))
	status, body := submitSetupForm(t, pageURL)
	if status != http.StatusOK || !strings.Contains(body, "is registered") {
		t.Fatalf("the page GitHub sent the browser back to = %d:\n%s", status, body)
	}
	if code := setup.exitCode(t); code != 0 {
		t.Fatalf("bot setup exit %d; stderr:\n%s", code, setup.stderr.String())
	}
	if fake.AppID() == oldApp || fake.AppSlug() != "merge-queue" {
		t.Fatalf("the fake's App is %d %q, want a new one from the manifest", fake.AppID(), fake.AppSlug())
	}
	keyPath := filepath.Join(dir, "config.private-key.pem")
	for _, f := range []string{cfgPath, keyPath} {
		if st, err := os.Stat(f); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v, mode %v; want a file of mode 0600", f, err, st.Mode())
		}
	}
	if !strings.Contains(setup.stdout.String(), fake.URL()+"/apps/merge-queue/installations/new") {
		t.Errorf("setup does not say where to install the App:\n%s", setup.stdout.String())
	}

	serveCtx, stopServe := context.WithCancel(t.Context())
	defer stopServe()
	srv := startBot(serveCtx, "serve", "--config", cfgPath)
	base := "http://" + botAddr
	waitFor(t, "bot serve to be ready", func() bool {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, func() string { return "serve stderr:\n" + srv.stderr.String() })

	code, out, errOut := runBot(t, "token", "create", "--config", cfgPath, "--name", "ci")
	if code != 0 {
		t.Fatalf("token create: %d %s", code, errOut)
	}
	apiToken := out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:]
	apiToken = strings.TrimSpace(apiToken)
	if err := fake.CreateRepo("demo", "app", map[string]string{"README.md": "# app\n"}); err != nil {
		t.Fatal(err)
	}
	if err := fake.SetRequiredChecks("demo", "app", "main", []string{"ci/test"}); err != nil {
		t.Fatal(err)
	}
	if err := fake.SetPermission("demo", "app", "alice", "write"); err != nil {
		t.Fatal(err)
	}
	repo := map[string]any{"host": "127.0.0.1", "owner": "demo", "name": "app"}
	if err := callAPI(t.Context(), base, apiToken, "createQueue", map[string]any{"repo": repo, "targetBranch": "main"}); err != nil {
		t.Fatal(err)
	}
	if _, err := fake.Commit("demo", "app", "feature", map[string]string{"feature.txt": "new\n"}, "Add a feature"); err != nil {
		t.Fatal(err)
	}
	n, err := fake.OpenPR("demo", "app", fakegithub.PROptions{Head: "feature", Title: "Add a feature", Author: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fake.Comment("demo", "app", n, "alice", "/mq merge"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, fmt.Sprintf("PR #%d to merge", n), func() bool {
		pr, err := fake.PR("demo", "app", n)
		return err == nil && pr.GetMerged()
	}, func() string { return "serve stderr:\n" + srv.stderr.String() })
	if got := fake.CommentsContaining("demo", "app", n, "Merge queue"); len(got) != 0 {
		t.Errorf("%d queue comments on a PR that merged without a hitch, want none (its check run says it)", len(got))
	}
	pr, err := fake.PR("demo", "app", n)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the queue's check run to conclude success", func() bool {
		runs := fake.CheckRunsNamed("demo", "app", pr.GetHead().GetSHA(), "Merge Queue (main)")
		return len(runs) == 1 && runs[0].GetConclusion() == "success" && runs[0].GetApp().GetSlug() == "merge-queue"
	}, func() string { return "serve stderr:\n" + srv.stderr.String() })
	stopServe()
	if code := srv.exitCode(t); code != 0 {
		t.Fatalf("bot serve exit %d after Ctrl-C; stderr:\n%s", code, srv.stderr.String())
	}
}

// The setup page completes the flow only for GitHub's redirect carrying
// its state, once; a forged callback changes nothing and setup keeps
// waiting.
func TestSetupChecksTheState(t *testing.T) {
	clearMQEnv(t)
	fake, err := fakegithub.New(fakegithub.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yml")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	setup := startBot(ctx, "setup", "--config", cfgPath, "--public-url", "https://mq.example.com", "--github-url", fake.URL())
	pageURL := setup.waitOutput(t, regexp.MustCompile(`Open (http://127\.0\.0\.1:\d+/) in a browser`))

	get := func(rawURL string) int {
		t.Helper()
		resp, err := http.Get(rawURL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for name, query := range map[string]string{"no state": "?code=abc", "wrong state": "?code=abc&state=forged"} {
		if got := get(pageURL + "callback" + query); got != http.StatusForbidden {
			t.Errorf("%s: callback = %d, want 403", name, got)
		}
	}
	// A DNS-rebinding page reaches the port under its own name: refused,
	// without the form and its state.
	rebound, err := http.NewRequest(http.MethodGet, pageURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	rebound.Host = "rebind.evil.example" + strings.TrimPrefix(strings.TrimSuffix(pageURL, "/"), "http://127.0.0.1")
	if resp, err := http.DefaultClient.Do(rebound); err != nil {
		t.Fatal(err)
	} else {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMisdirectedRequest || strings.Contains(string(body), "state=") {
			t.Errorf("the page for Host %s = %d %q, want 421 without the form", rebound.Host, resp.StatusCode, body)
		}
	}
	if _, err := os.Stat(cfgPath); !os.IsNotExist(err) {
		t.Fatalf("a forged callback wrote the config (%v)", err)
	}
	// The real flow still completes afterwards (the fake uses the default
	// API URL <github-url>/api/v3/), and only once.
	if status, body := submitSetupForm(t, pageURL); status != http.StatusOK {
		t.Fatalf("the real flow after forged callbacks = %d:\n%s", status, body)
	}
	if code := setup.exitCode(t); code != 0 {
		t.Fatalf("bot setup exit %d; stderr:\n%s", code, setup.stderr.String())
	}
	if !strings.Contains(setup.stderr.String(), "refused a callback") {
		t.Errorf("setup did not report the forged callbacks: %q", setup.stderr.String())
	}
	cfg, err := app.LoadConfig(cfgPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil || cfg.GitHub.App.IntegrationID != fake.AppID() || cfg.GitHub.V3APIURL != fake.URL()+"/api/v3/" {
		t.Fatalf("config: %v, app id %d (fake %d), API %q", err, cfg.GitHub.App.IntegrationID, fake.AppID(), cfg.GitHub.V3APIURL)
	}
}

// Setup refuses what it cannot do before sending anything to GitHub.
func TestSetupRefusals(t *testing.T) {
	clearMQEnv(t)
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.yml")
	if err := os.WriteFile(existing, []byte("# mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keyTaken := filepath.Join(dir, "keyed.yml")
	if err := os.WriteFile(filepath.Join(dir, "keyed.private-key.pem"), []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	pub := "--public-url=https://mq.example.com"
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no public URL", []string{"--config", filepath.Join(dir, "a.yml")}, 1, "--public-url is required"},
		{"existing config", []string{pub, "--config", existing}, 1, "refusing to overwrite " + existing},
		{"existing key", []string{pub, "--config", keyTaken}, 1, "refusing to overwrite"},
		{"no such directory", []string{pub, "--config", filepath.Join(dir, "nope", "c.yml")}, 1, "does not exist"},
		{"listen beyond loopback", []string{pub, "--config", filepath.Join(dir, "b.yml"), "--listen", "0.0.0.0:0"}, 1, "not a loopback address"},
		{"relative public URL", []string{"--public-url", "mq.example.com", "--config", filepath.Join(dir, "c.yml")}, 1, "not an absolute http(s) URL"},
		{"bad org", []string{pub, "--config", filepath.Join(dir, "d.yml"), "--org", "a/b"}, 1, "--org"},
		{"stray argument", []string{pub, "extra"}, 2, "unexpected arguments"},
		{"unknown flag", []string{"--nope"}, 2, "flag provided but not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runBot(t, append([]string{"setup"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
	if data, _ := os.ReadFile(existing); string(data) != "# mine\n" {
		t.Errorf("the existing config was changed: %q", data)
	}
}

// app.yml subscribes to exactly the events the bot handles (the ignored
// ones aside), and docs/github-app.md lists the same events and every
// permission.
func TestManifestMatchesHandlersAndDocs(t *testing.T) {
	m, err := loadManifest()
	if err != nil {
		t.Fatal(err)
	}
	var handled []string
	for _, h := range handlers.New(handlers.Config{}, nil, nil, nil) {
		if _, ignored := h.(*handlers.IgnoredHandler); !ignored {
			handled = append(handled, h.Handles()...)
		}
	}
	events := slices.Clone(m.DefaultEvents)
	slices.Sort(events)
	slices.Sort(handled)
	if !slices.Equal(events, handled) {
		t.Errorf("app.yml default_events = %v, the handlers handle %v", events, handled)
	}
	doc, err := os.ReadFile("../../docs/github-app.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(doc), "## Events\n\n")
	line, _, _ := strings.Cut(after, "\n")
	var documented []string
	for _, f := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(line, -1) {
		documented = append(documented, f[1])
	}
	slices.Sort(documented)
	if !slices.Equal(documented, events) {
		t.Errorf("docs/github-app.md lists events %v, app.yml %v", documented, events)
	}
	for perm, access := range m.DefaultPermissions {
		if !strings.Contains(string(doc), "`"+perm+": "+access+"`") {
			t.Errorf("docs/github-app.md does not show app.yml's permission `%s: %s`", perm, access)
		}
	}
	if m.Public || !m.HookAttributes.Active || m.URL != "" || m.RedirectURL != "" || m.HookAttributes.URL != "" {
		t.Errorf("app.yml must be private, with an active webhook and no deployment URLs (setup adds them): %+v", m)
	}
}
