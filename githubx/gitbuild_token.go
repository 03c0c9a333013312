package githubx

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mergequeue/mq/queue"
)

// tokenMargin is how long before its expiry an installation token is
// replaced: a fetch or push started with it must not outlive it.
const tokenMargin = 10 * time.Minute

// tokenCache holds the installation tokens git uses, one per
// installation, in memory only.
type tokenCache struct {
	mu     sync.Mutex
	tokens map[int64]cachedToken
}

type cachedToken struct {
	value   string
	expires time.Time
}

func newTokenCache() *tokenCache { return &tokenCache{tokens: map[int64]cachedToken{}} }

// auth is the gitAuth of repo's installation.
func (tc *tokenCache) auth(c *Client, repo queue.Repo) gitAuth {
	return gitAuth{
		get:  func(ctx context.Context) (string, error) { return tc.token(ctx, c, repo) },
		drop: tc.drop,
	}
}

// token returns a token of repo's installation valid for at least
// tokenMargin, minting one (POST /app/installations/{id}/access_tokens)
// when there is none.
func (tc *tokenCache) token(ctx context.Context, c *Client, repo queue.Repo) (string, error) {
	id, _, err := c.installation(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("failed to find the installation of %s: %w", repo.FullName(), err)
	}
	tc.mu.Lock()
	t, ok := tc.tokens[id]
	tc.mu.Unlock()
	if ok && time.Until(t.expires) > tokenMargin {
		return t.value, nil
	}
	tok, _, err := c.app.Apps.CreateInstallationToken(ctx, id, nil)
	if err != nil {
		return "", c.fail(repo, "mint an installation token for git", err)
	}
	t = cachedToken{value: tok.GetToken(), expires: tok.GetExpiresAt().Time}
	if t.expires.IsZero() {
		t.expires = time.Now().Add(time.Hour)
	}
	tc.mu.Lock()
	tc.tokens[id] = t
	tc.mu.Unlock()
	return t.value, nil
}

// drop forgets a token GitHub refused.
func (tc *tokenCache) drop(token string) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	for id, t := range tc.tokens {
		if t.value == token {
			delete(tc.tokens, id)
		}
	}
}
