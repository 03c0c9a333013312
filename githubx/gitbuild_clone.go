package githubx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

const (
	// gitKeepRefs bounds the commits a clone keeps refs to (the newest
	// fetched): they are what a fetch tells the server it has, so that
	// it sends only what is new; older ones become garbage.
	gitKeepRefs = 256
	// gitGCEvery is how many builds of a clone run between two garbage
	// collections.
	gitGCEvery = 200
	// gitPruneAge is how old unreferenced objects must be before a
	// garbage collection deletes them: older than any build in progress.
	gitPruneAge = "1.hour.ago"
	// keepRefPrefix names the refs of kept commits.
	keepRefPrefix = "refs/mq/keep/"
)

// errPushRefused is a push GitHub answered with a refusal of one of its
// ref updates (nothing applied, as it is atomic).
var errPushRefused = errors.New("push refused")

// gitAuth gives a fetch or push its token and drops one GitHub refused.
type gitAuth struct {
	get  func(ctx context.Context) (string, error)
	drop func(token string)
}

// gitClone is one repository's bare clone.
type gitClone struct {
	path    string
	timeout time.Duration

	gcMu    sync.RWMutex // builds hold it shared, a garbage collection alone
	fetchMu sync.Mutex   // one fetch at a time, and the keep list

	keep    []string // the SHAs kept as refs, oldest first
	keepMax int      // how many are kept (gitKeepRefs)

	mu         sync.Mutex
	builds     int // since the last garbage collection
	collecting bool
}

// openClone opens the bare clone at path, creating it when absent.
func openClone(ctx context.Context, path string, timeout time.Duration) (*gitClone, error) {
	cl := &gitClone{path: path, timeout: timeout, keepMax: gitKeepRefs}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(path, 0o700); err != nil {
			return nil, fmt.Errorf("failed to create clone %s: %w", path, err)
		}
		if _, err := cl.git(ctx, "", "init", "--bare", "-q"); err != nil {
			return nil, fmt.Errorf("failed to create clone %s: %w", path, err)
		}
		// No automatic gc (the builder collects itself, when no build
		// runs), no reflogs, no commit graph written by fetches.
		for _, kv := range [][2]string{{"gc.auto", "0"}, {"maintenance.auto", "false"}, {"core.logAllRefUpdates", "false"},
			{"fetch.writeCommitGraph", "false"}} {
			if _, err := cl.git(ctx, "", "config", kv[0], kv[1]); err != nil {
				return nil, fmt.Errorf("failed to configure clone %s: %w", path, err)
			}
		}
	} else if err != nil {
		return nil, fmt.Errorf("failed to open clone %s: %w", path, err)
	}
	out, err := cl.git(ctx, "", "for-each-ref", "--format=%(refname)", keepRefPrefix)
	if err != nil {
		return nil, fmt.Errorf("failed to open clone %s: %w", path, err)
	}
	for _, ref := range strings.Fields(out) {
		cl.keep = append(cl.keep, strings.TrimPrefix(ref, keepRefPrefix))
	}
	return cl, nil
}

// git runs git in the clone.
func (cl *gitClone) git(ctx context.Context, stdin string, args ...string) (string, error) {
	return runGit(ctx, gitRun{dir: cl.path, timeout: cl.timeout, stdin: stdin}, args...)
}

// use marks a build in progress until the returned func is called.
func (cl *gitClone) use() func() {
	cl.gcMu.RLock()
	return cl.gcMu.RUnlock
}

// missing returns the commits of shas the clone lacks.
func (cl *gitClone) missing(ctx context.Context, shas []string) ([]string, error) {
	out, err := cl.git(ctx, strings.Join(shas, "\n")+"\n", "cat-file", "--batch-check")
	if err != nil {
		return nil, fmt.Errorf("failed to look up commits: %w", err)
	}
	return parseMissing(shas, out)
}

// fetch brings the commits of shas the clone lacks from remote, and keeps
// a ref to each.
func (cl *gitClone) fetch(ctx context.Context, remote string, auth gitAuth, shas []string) error {
	cl.fetchMu.Lock()
	defer cl.fetchMu.Unlock()
	lack, err := cl.missing(ctx, dedupe(shas))
	if err != nil || len(lack) == 0 {
		return err
	}
	token, err := auth.get(ctx)
	if err != nil {
		return err
	}
	args := []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", remote}
	for _, sha := range lack {
		args = append(args, "+"+sha+":"+keepRefPrefix+sha)
	}
	_, err = runGit(ctx, gitRun{dir: cl.path, timeout: cl.timeout, token: token}, args...)
	if err != nil {
		var ee *gitExitError
		if errors.As(err, &ee) && (strings.Contains(ee.stderr, "not our ref") || strings.Contains(ee.stderr, "couldn't find remote ref")) {
			return fmt.Errorf("failed to fetch %s: a commit is not on GitHub: %s", strings.Join(lack, ", "), strings.TrimSpace(ee.stderr))
		}
		err = classifyTransport("fetch "+strings.Join(lack, ", "), err)
		if errors.Is(err, errGitUnauthorized) {
			auth.drop(token)
		}
		return err
	}
	cl.keep = append(cl.keep, lack...)
	if n := len(cl.keep) - cl.keepMax; n > 0 {
		var del strings.Builder
		for _, sha := range cl.keep[:n] {
			del.WriteString("delete " + keepRefPrefix + sha + "\n")
		}
		if _, err := cl.git(ctx, del.String(), "update-ref", "--stdin"); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Str("clone", cl.path).Msg("failed to drop old kept commits")
		} else {
			cl.keep = append([]string(nil), cl.keep[n:]...)
		}
	}
	return nil
}

// isAncestor reports whether commit a is contained in b.
func (cl *gitClone) isAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := cl.git(ctx, "", "merge-base", "--is-ancestor", a, b)
	var ee *gitExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &ee) && ee.code == 1:
		return false, nil
	default:
		return false, fmt.Errorf("failed to check whether %s contains %s: %w", b, a, err)
	}
}

// mergeTree merges theirs into ours and returns the merged tree, or
// conflict when they do not merge cleanly.
func (cl *gitClone) mergeTree(ctx context.Context, ours, theirs string) (tree string, conflict bool, err error) {
	out, err := cl.git(ctx, "", "merge-tree", "--write-tree", "--no-messages", "--allow-unrelated-histories", ours, theirs)
	var ee *gitExitError
	switch {
	case err == nil:
		tree, err := parseMergeTree(out)
		return tree, false, err
	case errors.As(err, &ee) && ee.code == 1:
		return "", true, nil
	default:
		return "", false, fmt.Errorf("failed to merge %s into %s: %w", theirs, ours, err)
	}
}

// commitTree writes a commit of tree with parents and message, signed by
// ident at when.
func (cl *gitClone) commitTree(ctx context.Context, tree string, parents []string, message string, ident gitIdentity, when time.Time) (string, error) {
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	date := "@" + strconv.FormatInt(when.Unix(), 10) + " +0000"
	env := []string{"GIT_AUTHOR_NAME=" + ident.name, "GIT_AUTHOR_EMAIL=" + ident.email, "GIT_AUTHOR_DATE=" + date,
		"GIT_COMMITTER_NAME=" + ident.name, "GIT_COMMITTER_EMAIL=" + ident.email, "GIT_COMMITTER_DATE=" + date}
	// The message comes on stdin: a PR title is in no argument list.
	out, err := runGit(ctx, gitRun{dir: cl.path, timeout: cl.timeout, stdin: message, env: env}, append(args, "-F", "-")...)
	if err != nil {
		return "", fmt.Errorf("failed to write the merge commit: %w", err)
	}
	sha := strings.TrimSpace(out)
	if !isObjectID(sha) {
		return "", fmt.Errorf("failed to write the merge commit: unexpected output %q", sha)
	}
	return sha, nil
}

// treeOf returns a commit's tree.
func (cl *gitClone) treeOf(ctx context.Context, sha string) (string, error) {
	out, err := cl.git(ctx, "", "rev-parse", "--verify", sha+"^{tree}")
	if err != nil {
		return "", fmt.Errorf("failed to read the tree of %s: %w", sha, err)
	}
	return strings.TrimSpace(out), nil
}

// push publishes sha as branch name and deletes the branches of del, in
// one atomic push: all of it, or nothing (errPushRefused when GitHub
// refused an update).
func (cl *gitClone) push(ctx context.Context, remote string, auth gitAuth, sha, name string, del []string) error {
	token, err := auth.get(ctx)
	if err != nil {
		return err
	}
	args := []string{"push", "--atomic", "--porcelain", "--no-verify", remote, "+" + sha + ":refs/heads/" + name}
	for _, d := range del {
		args = append(args, ":refs/heads/"+d)
	}
	out, err := runGit(ctx, gitRun{dir: cl.path, timeout: cl.timeout, token: token}, args...)
	var ee *gitExitError
	if errors.As(err, &ee) {
		out = ee.stdout
	} else if err != nil {
		return err
	}
	var refused []string
	for _, st := range parsePushPorcelain(out) {
		if st.Flag == '!' {
			refused = append(refused, st.Ref+" "+st.Summary)
		}
	}
	switch {
	case len(refused) > 0:
		return fmt.Errorf("failed to push %s: %w: %s", name, errPushRefused, strings.Join(refused, "; "))
	case err != nil:
		err = classifyTransport("push "+name, err)
		if errors.Is(err, errGitUnauthorized) {
			auth.drop(token)
		}
		return err
	}
	return nil
}

// built counts a finished build and, every every builds, collects the
// clone's garbage in the background once no build runs.
func (cl *gitClone) built(ctx context.Context, every int) {
	cl.mu.Lock()
	cl.builds++
	due := cl.builds >= every && !cl.collecting
	if due {
		cl.builds, cl.collecting = 0, true
	}
	cl.mu.Unlock()
	if !due {
		return
	}
	go func() {
		defer func() {
			cl.mu.Lock()
			cl.collecting = false
			cl.mu.Unlock()
		}()
		cl.gcMu.Lock()
		defer cl.gcMu.Unlock()
		gctx := context.WithoutCancel(ctx)
		if _, err := cl.git(gctx, "", "gc", "--quiet", "--prune="+gitPruneAge); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Str("clone", cl.path).Msg("failed to collect the clone's garbage")
		}
	}()
}

func dedupe(shas []string) []string {
	seen := make(map[string]bool, len(shas))
	out := shas[:0:0]
	for _, s := range shas {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
