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

// RefusalMessage is what a client is told of any refused token, whatever
// the reason: telling an unknown token from a revoked or expired one would
// tell an outsider which secrets once worked. The reason (the errors below)
// is for the server's log.
const RefusalMessage = "API token refused: unknown, revoked or expired"

// Why Verify refuses a presented secret. Their messages never quote the
// secret; they are for logs, clients get RefusalMessage.
var (
	// ErrInvalid: no token has this secret (or none was presented).
	ErrInvalid = errors.New("invalid API token")
	// ErrRevoked: the token was revoked.
	ErrRevoked = errors.New("API token revoked")
	// ErrExpired: the token's ExpiresAt is not after now.
	ErrExpired = errors.New("API token expired")
)

// RefusedError is Verify's refusal of a token it found: revoked or expired
// (Err). It names the token, so that the refusal can be logged with it.
type RefusedError struct {
	Err       error // ErrRevoked or ErrExpired
	TokenID   string
	TokenName string
}

func (e *RefusedError) Error() string { return e.Err.Error() }

// Unwrap makes errors.Is match Err.
func (e *RefusedError) Unwrap() error { return e.Err }

// IsRefusal reports whether err is a refusal of the presented secret
// (ErrInvalid, ErrRevoked or ErrExpired), not a store failure.
func IsRefusal(err error) bool {
	return errors.Is(err, ErrInvalid) || errors.Is(err, ErrRevoked) || errors.Is(err, ErrExpired)
}

// RefusedTokenID is the ID of the token a refusal names ("" when no token
// has the secret).
func RefusedTokenID(err error) string {
	var re *RefusedError
	if errors.As(err, &re) {
		return re.TokenID
	}
	return ""
}

// Hash is the SHA-256 of a token secret, the only form ever stored.
func Hash(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// Verify returns the live token whose secret was presented: it is looked
// up by the hash of the secret, the stored hash is compared in constant
// time, then revocation and expiry (ExpiresAt ≤ now) are checked, in that
// order. A refusal is ErrInvalid, or a *RefusedError matching ErrRevoked or
// ErrExpired (IsRefusal); any other error is a store failure. An empty secret is ErrInvalid without a lookup. The
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
	if err := Live(tok, now); err != nil {
		return nil, err
	}
	return tok, nil
}

// Live checks that the token t is neither revoked nor expired (ExpiresAt ≤
// now) at now: nil, or a *RefusedError matching ErrRevoked or ErrExpired.
func Live(t *Token, now time.Time) error {
	switch {
	case !t.RevokedAt.IsZero():
		return &RefusedError{Err: ErrRevoked, TokenID: t.ID, TokenName: t.Name}
	case !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt):
		return &RefusedError{Err: ErrExpired, TokenID: t.ID, TokenName: t.Name}
	}
	return nil
}
