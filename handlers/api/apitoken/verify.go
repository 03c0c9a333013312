package apitoken

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Why Verify refuses a presented secret. Their messages are fit to answer
// the client with: they never quote the secret.
var (
	// ErrInvalid: no token has this secret (or none was presented).
	ErrInvalid = errors.New("invalid API token")
	// ErrRevoked: the token was revoked.
	ErrRevoked = errors.New("API token revoked")
	// ErrExpired: the token's ExpiresAt is not after now.
	ErrExpired = errors.New("API token expired")
)

// Hash is the SHA-256 of a token secret, the only form ever stored.
func Hash(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// Verify returns the live token whose secret was presented: it is looked
// up by the hash of the secret, the stored hash is compared in constant
// time, then revocation and expiry (ExpiresAt ≤ now) are checked, in that
// order. A refusal is ErrInvalid, ErrRevoked or ErrExpired; any other error
// is a store failure. An empty secret is ErrInvalid without a lookup. The
// secret itself is dropped as soon as it is hashed.
func Verify(ctx context.Context, store Store, secret string, now time.Time) (*Token, error) {
	if secret == "" {
		return nil, ErrInvalid
	}
	hash := Hash(secret)
	tok, err := store.TokenByHash(ctx, hash)
	if errors.Is(err, queue.ErrNotFound) {
		return nil, ErrInvalid
	}
	if err != nil {
		return nil, fmt.Errorf("failed to look up API token: %w", err)
	}
	if tok == nil || subtle.ConstantTimeCompare(tok.Hash, hash) != 1 {
		return nil, ErrInvalid
	}
	if !tok.RevokedAt.IsZero() {
		return nil, ErrRevoked
	}
	if !tok.ExpiresAt.IsZero() && !now.Before(tok.ExpiresAt) {
		return nil, ErrExpired
	}
	return tok, nil
}
