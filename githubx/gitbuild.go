package githubx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

// DefaultGitTimeout bounds one git process of the git builder.
const DefaultGitTimeout = 2 * time.Minute

// GitBuildConfig configures building test branches with git instead of
// GitHub's merges API (WithGitBuilds).
type GitBuildConfig struct {
	// Dir holds one bare clone per repository (required; created).
	Dir string
	// CommitterName and CommitterEmail sign the merge commits, as author
	// and committer; "" = the App's bot ("<slug>[bot]" and its noreply
	// address).
	CommitterName, CommitterEmail string
	// Timeout bounds each git process (default DefaultGitTimeout).
	Timeout time.Duration
	// PushGuard, when set, is asked before every git push (a test branch's
	// publish, a fast-forward): an error stops the push, and the context
	// it returns bounds it. Pushes do not pass through the client's HTTP
	// middleware, so this is where a write guard (a replica that may have
	// lost its queue's lease) applies to them.
	PushGuard func(ctx context.Context) (context.Context, context.CancelFunc, error)
}

// guardPush applies cfg.PushGuard before a push.
func (b *gitBuilder) guardPush(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if b.cfg.PushGuard == nil {
		return ctx, func() {}, nil
	}
	pctx, cancel, err := b.cfg.PushGuard(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("push not allowed: %w", err)
	}
	return pctx, cancel, nil
}

// WithGitBuilds makes BuildBranch build test branches with git: a bare
// clone per repository in cfg.Dir fetches the commits a build needs over
// HTTPS with an installation token, merges them locally (`git merge-tree
// --write-tree`, `git commit-tree`) and publishes with one `git push
// --atomic`. A build then costs no content-creating request: no scratch
// ref, no POST /merges, no ref write. New fails when git is missing or
// older than 2.38.
func WithGitBuilds(cfg GitBuildConfig) Option {
	return func(o *options) { o.git = &cfg }
}

// gitBuilder builds test branches in local bare clones. It is safe for
// concurrent use: builds of one repository run at once (merge-tree needs
// no worktree and writes objects only); fetches of one clone are
// serialized, and its garbage collection waits for the builds.
type gitBuilder struct {
	cfg     GitBuildConfig
	webURL  string // repositories are at webURL/<owner>/<name>.git
	tokens  *tokenCache
	gcEvery int

	mu     sync.Mutex
	clones map[string]*gitClone // lower(owner/name)
	ident  *gitIdentity         // learnt once
}

// gitIdentity signs the merge commits.
type gitIdentity struct{ name, email string }

// newGitBuilder checks git and the directory.
func newGitBuilder(ctx context.Context, cfg GitBuildConfig, webURL string) (*gitBuilder, error) {
	if cfg.Dir == "" {
		return nil, errors.New("failed to set up git builds: no directory for the clones")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultGitTimeout
	}
	if err := checkGitVersion(ctx, cfg.Timeout); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("failed to create the git clones directory: %w", err)
	}
	b := &gitBuilder{cfg: cfg, webURL: strings.TrimRight(webURL, "/"), tokens: newTokenCache(), gcEvery: gitGCEvery,
		clones: map[string]*gitClone{}}
	if cfg.CommitterName != "" && cfg.CommitterEmail != "" {
		b.ident = &gitIdentity{name: cfg.CommitterName, email: cfg.CommitterEmail}
	}
	return b, nil
}

// checkGitVersion refuses a git without `merge-tree --write-tree`.
func checkGitVersion(ctx context.Context, timeout time.Duration) error {
	out, err := runGit(ctx, gitRun{timeout: timeout}, "version")
	if err != nil {
		return fmt.Errorf("failed to run git for git builds (github.test_branches: git needs git 2.38 or later): %w", err)
	}
	major, minor, err := parseGitVersion(out)
	if err != nil {
		return fmt.Errorf("failed to check git for git builds: %w", err)
	}
	if !gitVersionOK(major, minor) {
		return fmt.Errorf("git builds (github.test_branches: git) need git %d.%d or later for merge-tree --write-tree; found %d.%d",
			minGitMajor, minGitMinor, major, minor)
	}
	return nil
}

// clone returns repo's bare clone, creating it on first use.
func (b *gitBuilder) clone(ctx context.Context, repo queue.Repo) (*gitClone, error) {
	key := repoKey(repo)
	b.mu.Lock()
	defer b.mu.Unlock()
	if cl, ok := b.clones[key]; ok {
		return cl, nil
	}
	// One directory per repository; owner and name are safe path
	// segments (checkRepoPath), lower-cased as GitHub's names are
	// case-insensitive.
	path := filepath.Join(b.cfg.Dir, strings.ToLower(repo.Owner), strings.ToLower(repo.Name)+".git")
	cl, err := openClone(ctx, path, b.cfg.Timeout)
	if err != nil {
		return nil, err
	}
	b.clones[key] = cl
	return cl, nil
}

// identity returns who signs the merge commits: the configured identity,
// or the App's bot.
func (b *gitBuilder) identity(ctx context.Context, c *Client) (gitIdentity, error) {
	b.mu.Lock()
	id := b.ident
	b.mu.Unlock()
	if id != nil {
		return *id, nil
	}
	slug, err := c.AppSlug(ctx)
	if err != nil {
		return gitIdentity{}, fmt.Errorf("failed to learn the App's bot identity for git builds: %w", err)
	}
	login := slug + "[bot]"
	email := login + "@users.noreply.github.com"
	// GitHub's own address for the bot carries the bot user's id.
	if u, _, err := c.app.Users.Get(ctx, login); err == nil && u.GetID() != 0 {
		email = fmt.Sprintf("%d+%s", u.GetID(), email)
	}
	ident := gitIdentity{name: login, email: email}
	if b.cfg.CommitterName != "" {
		ident.name = b.cfg.CommitterName
	}
	if b.cfg.CommitterEmail != "" {
		ident.email = b.cfg.CommitterEmail
	}
	b.mu.Lock()
	b.ident = &ident
	b.mu.Unlock()
	return ident, nil
}

// build is BuildBranch with git (spec already checked): the same
// contract, with no scratch ref on GitHub at all, so KeepTemp and TempAt
// change nothing and a probe writes nothing to GitHub.
func (b *gitBuilder) build(ctx context.Context, c *Client, repo queue.Repo, spec queue.BranchSpec, what string) (queue.Built, error) {
	need := []string{spec.From}
	for _, h := range spec.Heads {
		need = append(need, h.SHA)
	}
	for _, sha := range need {
		if !isObjectID(sha) {
			return queue.Built{}, fmt.Errorf("failed to %s: %q is not a full commit SHA", what, sha)
		}
	}
	ident, err := b.identity(ctx, c)
	if err != nil {
		return queue.Built{}, fmt.Errorf("failed to %s: %w", what, err)
	}
	cl, err := b.clone(ctx, repo)
	if err != nil {
		return queue.Built{}, fmt.Errorf("failed to %s: %w", what, err)
	}
	release := cl.use()
	defer release()
	remote := b.remoteURL(repo)
	auth := b.tokens.auth(c, repo)
	if err := cl.fetch(ctx, remote, auth, need); err != nil {
		return queue.Built{}, fmt.Errorf("failed to %s: fetch: %w", what, err)
	}
	sha, tree := spec.From, ""
	when := c.now()
	for i, h := range spec.Heads {
		contained, err := cl.isAncestor(ctx, h.SHA, sha)
		if err != nil {
			return queue.Built{}, fmt.Errorf("failed to %s: %w", what, err)
		}
		if contained { // as GitHub's merges API: nothing to merge
			continue
		}
		t, conflict, err := cl.mergeTree(ctx, sha, h.SHA)
		if err != nil {
			return queue.Built{}, fmt.Errorf("failed to %s: merge #%d (%s): %w", what, h.PRNumber, h.SHA, err)
		}
		if conflict {
			return queue.Built{}, fmt.Errorf("failed to %s: merging #%d: %w", what, h.PRNumber, &queue.ConflictError{Index: i, SHA: h.SHA})
		}
		msg := h.Message
		if msg == "" { // GitHub's default for POST /merges into the scratch ref
			msg = "Merge " + h.SHA + " into " + spec.Temp
		}
		next, err := cl.commitTree(ctx, t, []string{sha, h.SHA}, msg, ident, when)
		if err != nil {
			return queue.Built{}, fmt.Errorf("failed to %s: commit the merge of #%d: %w", what, h.PRNumber, err)
		}
		sha, tree = next, t
	}
	if tree == "" {
		if tree, err = cl.treeOf(ctx, sha); err != nil {
			return queue.Built{}, fmt.Errorf("failed to %s: %w", what, err)
		}
	}
	c.trees.put(repoKey(repo), sha, tree)
	built := queue.Built{SHA: sha, Tree: tree}
	if spec.Name == "" { // a probe
		return built, nil
	}
	if spec.Publishing != nil {
		if err := spec.Publishing(ctx, sha); err != nil {
			return queue.Built{}, fmt.Errorf("failed to %s: record %s before publishing: %w", what, sha, err)
		}
	}
	defer cl.built(ctx, b.gcEvery)
	pctx, done, err := b.guardPush(ctx)
	if err != nil {
		return queue.Built{}, fmt.Errorf("failed to %s: %w", what, err)
	}
	defer done()
	if len(spec.Delete) > 0 {
		err := cl.push(pctx, remote, auth, sha, spec.Name, spec.Delete)
		if err == nil {
			built.Deleted = append([]string(nil), spec.Delete...)
			return built, nil
		}
		if !errors.Is(err, errPushRefused) {
			return queue.Built{}, fmt.Errorf("failed to %s: publish at %s: %w", what, sha, err)
		}
		zerolog.Ctx(ctx).Info().Err(err).Str("branch", spec.Name).Msg("publishing with the clean-up refused; publishing alone")
	}
	if err := cl.push(pctx, remote, auth, sha, spec.Name, nil); err != nil {
		return queue.Built{}, fmt.Errorf("failed to %s: publish at %s: %w", what, sha, err)
	}
	return built, nil
}

// remoteURL is the repository's HTTPS address; it carries no credential.
func (b *gitBuilder) remoteURL(repo queue.Repo) string {
	p := escapedRepo(repo)
	return b.webURL + "/" + p.owner + "/" + p.name + ".git"
}
