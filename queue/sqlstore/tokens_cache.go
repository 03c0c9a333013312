package sqlstore

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mergequeue/mq/queue/record"
)

// TokenCacheTTL is how long a token TokenByHash found is answered from
// memory: the bound on how late a running server learns of a token
// revoked by another process (`bot token revoke`). A token revoked
// through the same Store (and so the same process) is refused at once.
const TokenCacheTTL = time.Second

// maxCachedTokens bounds the cache. Only tokens that exist are cached
// (an unknown hash is looked up every time), so the bound is only reached
// by a store of that many tokens in use at once; then the cache starts
// over.
const maxCachedTokens = 1024

// tokenCache keeps the tokens found by hash for TokenCacheTTL. gen counts
// the token writes of the store: an entry found before the latest write
// is not served, so a revocation committed by this store is seen by the
// next lookup.
type tokenCache struct {
	gen atomic.Uint64
	now func() time.Time

	mu sync.Mutex
	by map[string]cachedToken // string(hash)
}

type cachedToken struct {
	tok record.Token
	gen uint64
	at  time.Time
}

func newTokenCache() *tokenCache {
	return &tokenCache{now: time.Now, by: map[string]cachedToken{}}
}

// get returns a copy of the token cached under hash, if still good.
func (c *tokenCache) get(hash []byte) (*record.Token, bool) {
	c.mu.Lock()
	e, ok := c.by[string(hash)]
	c.mu.Unlock()
	if !ok || e.gen != c.gen.Load() {
		return nil, false
	}
	if age := c.now().Sub(e.at); age < 0 || age >= TokenCacheTTL {
		return nil, false
	}
	return copyToken(e.tok), true
}

// put caches tok, found by a lookup that began at generation gen.
func (c *tokenCache) put(hash []byte, tok *record.Token, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.by) >= maxCachedTokens {
		clear(c.by)
	}
	c.by[string(hash)] = cachedToken{tok: *copyToken(*tok), gen: gen, at: c.now()}
}

// changed records a committed token write: every cached token is looked
// up again.
func (c *tokenCache) changed() { c.gen.Add(1) }

func copyToken(t record.Token) *record.Token {
	t.Hash = slices.Clone(t.Hash)
	t.Repos = slices.Clone(t.Repos)
	t.Owners = slices.Clone(t.Owners)
	return &t
}

// TokenByHash finds a token by the hash of its secret, revoked or expired
// ones included (the caller decides); queue.ErrNotFound if none. A token
// found is answered from memory for TokenCacheTTL, unless a token was
// created or revoked through this Store since: a revocation made here is
// seen at once, one made by another process within TokenCacheTTL. An
// unknown hash is looked up every time.
func (s *Store) TokenByHash(ctx context.Context, hash []byte) (*record.Token, error) {
	if s.tokens == nil { // a Store built by hand (tests of migrations)
		return s.ops.TokenByHash(ctx, hash)
	}
	if tok, ok := s.tokens.get(hash); ok {
		return tok, nil
	}
	gen := s.tokens.gen.Load() // before the lookup: a write meanwhile makes what it finds stale
	tok, err := s.ops.TokenByHash(ctx, hash)
	if err != nil {
		return nil, err
	}
	s.tokens.put(hash, tok, gen)
	return tok, nil
}
