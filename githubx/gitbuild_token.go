package githubx

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// tokenMargin is how long before its expiry an installation token is
// replaced: a fetch or push started with it must not outlive it.
const tokenMargin = 10 * time.Minute

// tokenCache holds the installation tokens git uses, in memory only: one
// per repository, scoped to it and to contents: write, so that a token
// seen by a git process can do nothing else.
type tokenCache struct {
	mu     sync.Mutex
	tokens map[string]cachedToken // lower(owner/name)
}

type cachedToken struct {
	value   string
	expires time.Time
}

func newTokenCache() *tokenCache { return &tokenCache{tokens: map[string]cachedToken{}} }

// auth is the gitAuth of repo's installation.
func (tc *tokenCache) auth(c *Client, repo queue.Repo) gitAuth {
	return gitAuth{
		get:  func(ctx context.Context) (string, error) { return tc.token(ctx, c, repo) },
		drop: tc.drop,
	}
}

// token returns a token for repo valid for at least tokenMargin, minting
// one (POST /app/installations/{id}/access_tokens, restricted to repo and
// contents: write) when there is none.
func (tc *tokenCache) token(ctx context.Context, c *Client, repo queue.Repo) (string, error) {
	key := repoKey(repo)
	tc.mu.Lock()
	t, ok := tc.tokens[key]
	tc.mu.Unlock()
	if ok && time.Until(t.expires) > tokenMargin {
		return t.value, nil
	}
	id, _, err := c.installation(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("failed to find the installation of %s: %w", repo.FullName(), err)
	}
	tok, _, err := c.app.Apps.CreateInstallationToken(ctx, id, &github.InstallationTokenOptions{
		Repositories: []string{repo.Name},
		Permissions:  &github.InstallationPermissions{Contents: github.String("write")},
	})
	if err != nil {
		return "", c.fail(repo, "mint an installation token for git", err)
	}
	t = cachedToken{value: tok.GetToken(), expires: tok.GetExpiresAt().Time}
	if t.expires.IsZero() {
		t.expires = time.Now().Add(time.Hour)
	}
	tc.mu.Lock()
	tc.tokens[key] = t
	tc.mu.Unlock()
	return t.value, nil
}

// drop forgets a token GitHub refused.
func (tc *tokenCache) drop(token string) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	for key, t := range tc.tokens {
		if t.value == token {
			delete(tc.tokens, key)
		}
	}
}
