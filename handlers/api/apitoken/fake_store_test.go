package apitoken

import (
	"context"
	"encoding/hex"
	"sync"
	"time"

	"github.com/mergequeue/mq/queue"
)

// fakeTokens is an in-memory Store.
type fakeTokens struct {
	mu     sync.Mutex
	byHash map[string]Token
	// err, when set, fails every call.
	err error
	// override, when set, is returned by TokenByHash whatever the hash.
	override *Token
	lookups  int
}

func newFakeTokens() *fakeTokens { return &fakeTokens{byHash: map[string]Token{}} }

func (f *fakeTokens) CreateToken(_ context.Context, t Token) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.byHash[hex.EncodeToString(t.Hash)] = t
	return nil
}

func (f *fakeTokens) TokenByHash(_ context.Context, hash []byte) (*Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups++
	if f.err != nil {
		return nil, f.err
	}
	if f.override != nil {
		t := *f.override
		return &t, nil
	}
	t, ok := f.byHash[hex.EncodeToString(hash)]
	if !ok {
		return nil, queue.ErrNotFound
	}
	return &t, nil
}

func (f *fakeTokens) ListTokens(context.Context) ([]Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	out := make([]Token, 0, len(f.byHash))
	for _, t := range f.byHash {
		out = append(out, t)
	}
	return out, nil
}

func (f *fakeTokens) RevokeToken(_ context.Context, idOrName string, at time.Time) error {
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

// add stores a token for secret.
func (f *fakeTokens) add(secret string, t Token) {
	t.Hash = Hash(secret)
	if t.ID == "" {
		t.ID = "id-" + t.Name
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.byHash[hex.EncodeToString(t.Hash)] = t
}

func (f *fakeTokens) configure(fn func(*fakeTokens)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}
