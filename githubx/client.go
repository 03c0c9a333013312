package githubx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v66/github"
	"github.com/palantir/go-githubapp/githubapp"

	"github.com/mergequeue/mq/queue"
)

// ErrNotInstalled means the App is not installed on the repository (or cannot
// see it).
var ErrNotInstalled = errors.New("GitHub App is not installed on the repository")

// Client is the queue's GitHub port for one GitHub host and one App. It is
// safe for concurrent use.
type Client struct {
	cfg     Config
	opts    options
	ccOpts  []githubapp.ClientOption // of every client creator
	creator githubapp.ClientCreator  // the App's own client's
	app     *github.Client

	mu            sync.Mutex
	installations map[string]int64         // lower(owner/name) → installation ID
	clients       map[int64]*github.Client // installation ID → client
	budgets       map[int64]*scheduler     // installation ID → its budget (kept when its client is dropped)
	nodeIDs       map[string]string        // lower(owner/name) → repository node id
	trees         *treeCache               // commit SHA → tree SHA (immutable)
	noRerun       map[int64]bool           // installation ID → refused to re-run checks (RerunFailedCheck)

	git *gitBuilder // nil: BuildBranch uses the merges API
}

var _ queue.GitHub = (*Client)(nil)

// New builds a Client. It parses the App key (so a bad key fails here) but
// makes no request; call AppSlug to prove the key works.
func New(cfg Config, opts ...Option) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.budget.Validate(); err != nil {
		return nil, err
	}
	o.budget = o.budget.WithDefaults()
	// No client-wide timeout: it would count the waits for budget. Each
	// try is bounded by the retry middleware instead.
	ccOpts := []githubapp.ClientOption{githubapp.WithClientUserAgent(cfg.UserAgent)}
	if o.transport != nil {
		ccOpts = append(ccOpts, githubapp.WithTransport(o.transport))
	}
	c := &Client{
		cfg:           cfg,
		opts:          o,
		ccOpts:        ccOpts,
		installations: make(map[string]int64),
		clients:       make(map[int64]*github.Client),
		budgets:       make(map[int64]*scheduler),
		nodeIDs:       make(map[string]string),
		trees:         newTreeCache(treeCacheSize),
	}
	c.creator = c.newCreator(nil)
	app, err := c.creator.NewAppClient()
	if err != nil {
		return nil, fmt.Errorf("failed to create GitHub App client: %w", err)
	}
	c.app = app
	if o.git != nil {
		if c.git, err = newGitBuilder(context.Background(), *o.git, cfg.WebURL); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// newCreator makes a client creator whose clients spend budget (nil: the
// App's own client, which has none).
func (c *Client) newCreator(budget *scheduler) githubapp.ClientCreator {
	opts := append(append([]githubapp.ClientOption{}, c.ccOpts...),
		githubapp.WithClientMiddleware(middlewares(c.opts, newBasePaths(c.cfg), budget)...))
	return githubapp.NewClientCreator(c.cfg.V3APIURL, c.cfg.V4APIURL, c.cfg.AppID, c.cfg.PrivateKey, opts...)
}

// middlewares are what every request to GitHub goes through, outermost
// first: the path guard (outermost: a refused request mints no token,
// waits for no budget and is not retried), the retry middleware reporting
// each try to the observer (spending budget, if any), then the options'
// own middleware.
func middlewares(o options, base basePaths, budget *scheduler) []githubapp.ClientMiddleware {
	return append([]githubapp.ClientMiddleware{PathGuardMiddleware,
		retryMiddleware(o.retry, o.observer, base, budget, o.timeout)}, o.middleware...)
}

// plainHTTPClient is an HTTP client whose requests go through
// middlewares (without budget) to the options' transport, each call
// (retries included) bounded by timeout: the client of the calls made
// without the App's credentials (a user's, the App manifest conversion).
func plainHTTPClient(o options, base basePaths, timeout time.Duration) *http.Client {
	rt := o.transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	mw := middlewares(o, base, nil)
	for i := len(mw) - 1; i >= 0; i-- {
		rt = mw[i](rt)
	}
	return &http.Client{Transport: rt, Timeout: timeout}
}

// Config returns the effective configuration (defaults applied), without
// the private key.
func (c *Client) Config() Config {
	cfg := c.cfg
	cfg.PrivateKey = nil
	return cfg
}

// AppSlug reads the App (GET /app) and returns its slug. A success proves
// the App ID and key are accepted.
func (c *Client) AppSlug(ctx context.Context) (string, error) {
	app, _, err := c.app.Apps.Get(ctx, "")
	if err != nil {
		return "", wrap("read the GitHub App", err)
	}
	return app.GetSlug(), nil
}

// AppClient returns the client authenticated as the App itself (JWT).
func (c *Client) AppClient() *github.Client { return c.app }

// InstallationClient returns a client authenticated as the App's
// installation on repo, resolving and caching the installation. A repo on
// another host, or whose owner or name is not one safe URL path segment
// (ErrUnsafePath), is refused before any request.
func (c *Client) InstallationClient(ctx context.Context, repo queue.Repo) (*github.Client, error) {
	_, gh, err := c.installation(ctx, repo)
	return gh, err
}

// installation resolves repo's installation and returns its ID and client.
func (c *Client) installation(ctx context.Context, repo queue.Repo) (int64, *github.Client, error) {
	if err := c.checkHost(repo); err != nil {
		return 0, nil, err
	}
	key := repoKey(repo)
	c.mu.Lock()
	id, ok := c.installations[key]
	c.mu.Unlock()
	if !ok {
		p := escapedRepo(repo)
		inst, _, err := c.app.Apps.FindRepositoryInstallation(ctx, p.owner, p.name)
		if err != nil {
			if statusOf(err) == 404 {
				return 0, nil, fmt.Errorf("failed to find the installation for %s: %w: %w", repo.FullName(), ErrNotInstalled, err)
			}
			return 0, nil, wrap("find the installation for "+repo.FullName(), err)
		}
		id = inst.GetID()
		c.mu.Lock()
		c.installations[key] = id
		c.mu.Unlock()
	}
	gh, err := c.installationClient(id)
	return id, gh, err
}

func (c *Client) installationClient(id int64) (*github.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gh, ok := c.clients[id]; ok {
		return gh, nil
	}
	gh, err := c.newCreator(c.budgetLocked(id)).NewInstallationClient(id)
	if err != nil {
		return nil, fmt.Errorf("failed to create client for installation %d: %w", id, err)
	}
	c.clients[id] = gh
	return gh, nil
}

// forget drops cached installation state after GitHub said 401 or 404, so
// the next call resolves the installation again.
func (c *Client) forget(repo queue.Repo, err error) {
	status := statusOf(err)
	tokenFailure := isTokenError(err)
	if status != 401 && status != 404 && !tokenFailure {
		return
	}
	key := repoKey(repo)
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.installations[key]
	delete(c.installations, key)
	if ok && (status == 401 || tokenFailure) {
		delete(c.clients, id)
	}
}

// fail forgets stale installation state when err calls for it and wraps err
// with what failed.
func (c *Client) fail(repo queue.Repo, what string, err error) error {
	c.forget(repo, err)
	return wrap(what, err)
}

func (c *Client) checkHost(repo queue.Repo) error {
	if repo.Host != "" && !strings.EqualFold(repo.Host, c.cfg.Host) {
		return fmt.Errorf("repository %s is on host %q; this client serves %q", repo.FullName(), repo.Host, c.cfg.Host)
	}
	return checkRepoPath(repo) // also refuses an empty owner or name
}

func (c *Client) now() time.Time { return c.opts.now().UTC() }

func repoKey(repo queue.Repo) string { return strings.ToLower(repo.FullName()) }
