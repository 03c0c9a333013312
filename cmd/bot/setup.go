package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/queue"
)

const setupAbout = `Registers the merge queue's GitHub App from its manifest (app.yml) and writes
a config for it. It serves a page on a loopback port: open it in a browser
signed in to GitHub and press the button; GitHub asks you to name the App and
creates it, then sends your browser back to this command, which fetches the
App's id, private key and webhook secret and writes --config (and the key
beside it, both mode 0600). Webhooks go to <public-url>/api/github/hook.
Then install the App on your repositories and run "bot serve --config FILE".`

// setupPlan is what `bot setup` registers and writes, settled before
// anything is sent to GitHub.
type setupPlan struct {
	configPath string // absolute
	keyPath    string // absolute, beside the config
	dbPath     string // absolute
	publicURL  string
	webURL     string // no trailing slash
	apiURL     string // trailing slash
	graphqlURL string
	org        string
	name       string
	listen     string
	address    string
	force      bool
}

// runSetup registers the GitHub App through GitHub's manifest flow and
// writes a config with which `bot serve` starts. It refuses to overwrite
// an existing config or key file without --force, and accepts GitHub's
// answer only with the state it sent (CSRF).
func runSetup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("setup", "setup --public-url URL [--config config.yml] [--org ORG] [--github-url URL] [flags]", setupAbout)
	var o setupPlan
	fs.StringVar(&o.configPath, "config", "config.yml", "configuration file to write")
	fs.StringVar(&o.publicURL, "public-url", os.Getenv(app.EnvPublicURL), "URL GitHub and people reach the merge queue at (server.public_url; default $"+app.EnvPublicURL+")")
	fs.StringVar(&o.webURL, "github-url", githubx.DefaultWebURL, "GitHub's web URL (GitHub Enterprise: https://ghe.example.com)")
	fs.StringVar(&o.apiURL, "api-url", "", "GitHub's REST API URL (default: https://api.github.com/, or <github-url>/api/v3/ for GitHub Enterprise)")
	fs.StringVar(&o.org, "org", "", "register the App under this organization (default: your personal account)")
	fs.StringVar(&o.name, "name", "", "the App's name (default: app.yml's; names are unique on GitHub, which lets you change it)")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:0", "loopback address of the setup page (port 0: a free one)")
	fs.StringVar(&o.address, "address", app.DefaultServerAddress, "server.address the written config listens on")
	fs.StringVar(&o.dbPath, "db", "", "database.path of the written config (default: mq.db beside it)")
	fs.BoolVar(&o.force, "force", false, "overwrite an existing config and key file")
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bot setup: unexpected arguments %q\n\n", fs.Args())
		fs.Usage()
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	plan, err := newSetupPlan(o)
	if err != nil {
		return err
	}
	manifest, err := loadManifest()
	if err != nil {
		return err
	}
	state, err := randomState()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", plan.listen)
	if err != nil {
		return fmt.Errorf("failed to listen on %s: %w", plan.listen, err)
	}
	pageURL := "http://" + ln.Addr().String() + "/"
	m := manifest.forDeployment(plan.name, plan.publicURL, pageURL+"callback")
	page, err := newSetupPage(ctx, plan, m, state, ln.Addr().String(), stderr)
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: page, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		// Let the browser receive the last page before the server goes.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()

	fmt.Fprintf(stdout, "Open %s in a browser signed in to %s to register the GitHub App %q.\n"+
		"Waiting for GitHub to send it back (Ctrl-C cancels).\n", pageURL, plan.webURL, m.Name)
	var res setupResult
	select {
	case res = <-page.done:
	case <-ctx.Done():
		return errors.New("cancelled before GitHub sent the App back; nothing was written")
	}
	if res.err != nil {
		return res.err
	}
	a := res.app
	fmt.Fprintf(stdout, `
Registered the GitHub App %q (id %d): %s
Wrote %s and %s (mode 0600: they hold the App's secrets).

Next:
  1. Install the App on your repositories: %s/installations/new
  2. Run the merge queue where %s reaches it:
       bot serve --config %s
  3. Create a queue and an API token: see README.md, "Install on GitHub".
`, a.Name, a.ID, a.HTMLURL, plan.configPath, plan.keyPath,
		strings.TrimRight(a.HTMLURL, "/"), plan.publicURL, plan.configPath)
	return nil
}

// newSetupPlan checks the options and settles paths and URLs.
func newSetupPlan(o setupPlan) (*setupPlan, error) {
	p := o
	if p.publicURL == "" {
		return nil, fmt.Errorf("--public-url is required: the URL GitHub sends webhooks to (or $%s)", app.EnvPublicURL)
	}
	p.publicURL = strings.TrimRight(p.publicURL, "/")
	p.webURL = strings.TrimRight(p.webURL, "/")
	for flagName, raw := range map[string]string{"--public-url": p.publicURL, "--github-url": p.webURL} {
		if err := checkHTTPURL(raw); err != nil {
			return nil, fmt.Errorf("%s: %w", flagName, err)
		}
	}
	p.apiURL, p.graphqlURL = apiURLsFor(p.webURL, p.apiURL)
	if err := checkHTTPURL(p.apiURL); err != nil {
		return nil, fmt.Errorf("--api-url: %w", err)
	}
	if p.org != "" {
		if err := queue.ValidateOwner(p.org); err != nil {
			return nil, fmt.Errorf("--org: %w", err)
		}
	}
	if err := checkLoopback(p.listen); err != nil {
		return nil, fmt.Errorf("--listen: %w", err)
	}
	if _, _, err := net.SplitHostPort(p.address); err != nil {
		return nil, fmt.Errorf("--address: %q is not host:port: %w", p.address, err)
	}
	var err error
	if p.configPath, err = filepath.Abs(p.configPath); err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	dir := filepath.Dir(p.configPath)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--config: directory %s does not exist", dir)
	}
	base := filepath.Base(p.configPath)
	p.keyPath = filepath.Join(dir, strings.TrimSuffix(base, filepath.Ext(base))+".private-key.pem")
	if p.dbPath == "" {
		p.dbPath = filepath.Join(dir, app.DefaultDatabasePath)
	}
	if p.dbPath, err = filepath.Abs(p.dbPath); err != nil {
		return nil, fmt.Errorf("--db: %w", err)
	}
	if !p.force {
		for _, f := range []string{p.configPath, p.keyPath} {
			if _, err := os.Lstat(f); err == nil {
				return nil, fmt.Errorf("refusing to overwrite %s (--force overwrites it)", f)
			}
		}
	}
	return &p, nil
}

// apiURLsFor returns the REST (with a trailing slash) and GraphQL API URLs
// of a GitHub web URL: api.github.com's for github.com, GitHub
// Enterprise's /api/v3/ and /api/graphql otherwise. A given REST URL is
// kept.
func apiURLsFor(webURL, apiURL string) (rest, graphql string) {
	if u, err := url.Parse(webURL); err == nil && strings.EqualFold(u.Host, queue.DefaultHost) {
		rest, graphql = githubx.DefaultV3APIURL, githubx.DefaultV4APIURL
	} else {
		rest, graphql = webURL+"/api/v3/", webURL+"/api/graphql"
	}
	if apiURL != "" {
		rest = strings.TrimRight(apiURL, "/") + "/"
	}
	return rest, graphql
}

// checkHTTPURL accepts an absolute http(s) URL.
func checkHTTPURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", raw)
	}
	return nil
}

// checkLoopback accepts host:port on a loopback host: the setup page hands
// out the App's credentials to whoever completes the flow.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%q is not a loopback address (127.0.0.1, ::1 or localhost)", addr)
	}
	return nil
}

// randomState returns the unguessable state the flow must bring back.
func randomState() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("failed to read random bytes: %w", err)
	}
	return hex.EncodeToString(b), nil
}
