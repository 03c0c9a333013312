// Package apitokentest provides an in-memory apitoken.Store for tests of
// the packages that issue and verify API tokens.
package apitokentest

import (
	"context"
	"encoding/hex"
	"sync"
	"time"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/queue"
)

// Store is an in-memory apitoken.Store, safe for concurrent use. Its
// fields are read under its lock: set them through Configure once the
// store is in use.
type Store struct {
	mu     sync.Mutex
	byHash map[string]apitoken.Token
	// Err, when set, fails every call but RevokeToken.
	Err error
	// Override, when set, is returned by TokenByHash whatever the hash.
	Override *apitoken.Token
	lookups  int
}

// NewStore returns an empty Store.
func NewStore() *Store { return &Store{byHash: map[string]apitoken.Token{}} }

// CreateToken stores t under its hash.
func (f *Store) CreateToken(_ context.Context, t apitoken.Token) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return f.Err
	}
	f.byHash[hex.EncodeToString(t.Hash)] = t
	return nil
}

// TokenByHash finds the token stored under hash (queue.ErrNotFound).
func (f *Store) TokenByHash(_ context.Context, hash []byte) (*apitoken.Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups++
	if f.Err != nil {
		return nil, f.Err
	}
	if f.Override != nil {
		t := *f.Override
		return &t, nil
	}
	t, ok := f.byHash[hex.EncodeToString(hash)]
	if !ok {
		return nil, queue.ErrNotFound
	}
	return &t, nil
}

// TokenByID finds the token with this ID (queue.ErrNotFound).
func (f *Store) TokenByID(_ context.Context, id string) (*apitoken.Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return nil, f.Err
	}
	for _, t := range f.byHash {
		if t.ID == id {
			return &t, nil
		}
	}
	return nil, queue.ErrNotFound
}

// ListTokens returns every stored token, in no particular order.
func (f *Store) ListTokens(context.Context) ([]apitoken.Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return nil, f.Err
	}
	out := make([]apitoken.Token, 0, len(f.byHash))
	for _, t := range f.byHash {
		out = append(out, t)
	}
	return out, nil
}

// RevokeToken marks the token with this ID or name revoked at at
// (queue.ErrNotFound).
func (f *Store) RevokeToken(_ context.Context, idOrName string, at time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, t := range f.byHash {
		if t.ID == idOrName || t.Name == idOrName {
			t.RevokedAt = at
			f.byHash[k] = t
			return nil
		}
	}
	return queue.ErrNotFound
}

// Add stores t as the token of secret; an empty ID becomes "id-" + name.
func (f *Store) Add(secret string, t apitoken.Token) {
	t.Hash = apitoken.Hash(secret)
	if t.ID == "" {
		t.ID = "id-" + t.Name
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.byHash[hex.EncodeToString(t.Hash)] = t
}

// Configure runs fn on the store under its lock.
func (f *Store) Configure(fn func(*Store)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// Lookups counts the TokenByHash calls so far.
func (f *Store) Lookups() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lookups
}
