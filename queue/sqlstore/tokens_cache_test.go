package sqlstore

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/record"
)

// fakeClock is a settable clock for the token cache.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// A token revoked through the Store that verifies it is refused at the
// next lookup, even with the token cached; one revoked through another
// Store on the same file (another process) is seen once TokenCacheTTL has
// passed, and not before: the cache answered meanwhile.
func TestTokenCacheRevocation(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mq.db")
	server, other := openAt(t, path), openAt(t, path)
	clock := &fakeClock{now: t0}
	server.tokens.now = clock.Now

	for _, id := range []string{"here", "there"} {
		if err := server.CreateToken(ctx, record.Token{ID: id, Name: id, Hash: hashOf(id), CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		if tok, err := server.TokenByHash(ctx, hashOf(id)); err != nil || !tok.RevokedAt.IsZero() {
			t.Fatalf("TokenByHash(%s) = %+v, %v", id, tok, err)
		}
	}

	if err := server.RevokeToken(ctx, "here", t0); err != nil {
		t.Fatal(err)
	}
	if tok, err := server.TokenByHash(ctx, hashOf("here")); err != nil || tok.RevokedAt.IsZero() {
		t.Fatalf("revoked through the same store: TokenByHash = %+v, %v; want it revoked at once", tok, err)
	}

	if tok, err := server.TokenByHash(ctx, hashOf("there")); err != nil || !tok.RevokedAt.IsZero() { // cached again
		t.Fatalf("TokenByHash(there) = %+v, %v", tok, err)
	}
	if err := other.RevokeToken(ctx, "there", t0); err != nil {
		t.Fatal(err)
	}
	clock.Add(TokenCacheTTL - time.Millisecond)
	if tok, err := server.TokenByHash(ctx, hashOf("there")); err != nil || !tok.RevokedAt.IsZero() {
		t.Fatalf("within the TTL the cached token is answered: %+v, %v", tok, err)
	}
	clock.Add(time.Millisecond)
	if tok, err := server.TokenByHash(ctx, hashOf("there")); err != nil || tok.RevokedAt.IsZero() {
		t.Fatalf("revoked by another process %s ago: TokenByHash = %+v, %v; want it revoked", TokenCacheTTL, tok, err)
	}
}

// A revocation committed in a transaction is seen once it commits; the
// cache hands out copies; an unknown hash is never cached.
func TestTokenCacheTransactionsAndCopies(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mq.db")
	s, other := openAt(t, path), openAt(t, path)
	tok := record.Token{ID: "t", Name: "ci", Hash: hashOf("t"), Repos: []string{"acme/widgets"}, CreatedAt: t0}
	if err := s.CreateToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	got, err := s.TokenByHash(ctx, tok.Hash)
	if err != nil {
		t.Fatal(err)
	}
	got.Repos[0] = "evil/repo"
	if again, _ := s.TokenByHash(ctx, tok.Hash); again.Repos[0] != "acme/widgets" {
		t.Errorf("a caller's change reached the cache: %v", again.Repos)
	}

	err = s.WithTx(ctx, func(tx queue.Store) error {
		return tx.(interface {
			RevokeToken(ctx context.Context, idOrName string, at time.Time) error
		}).RevokeToken(ctx, "t", t0)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.TokenByHash(ctx, tok.Hash); err != nil || got.RevokedAt.IsZero() {
		t.Fatalf("revoked in a committed transaction: %+v, %v", got, err)
	}

	if _, err := s.TokenByHash(ctx, hashOf("later")); err == nil {
		t.Fatal("unknown hash found")
	}
	if err := other.CreateToken(ctx, record.Token{ID: "later", Name: "later", Hash: hashOf("later"), CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TokenByHash(ctx, hashOf("later")); err != nil {
		t.Errorf("a token created by another process after a failed lookup: %v", err)
	}
}
