package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// TokenHeader carries the API token (seed §5). An absent and an empty header
// are the same: 401.
const TokenHeader = "x-api-token"

type tokenKey struct{}

func withToken(ctx context.Context, tok *queue.APIToken) context.Context {
	return context.WithValue(ctx, tokenKey{}, tok)
}

// tokenFrom returns the authenticated token of the request (nil outside an
// authenticated operation).
func tokenFrom(ctx context.Context) *queue.APIToken {
	tok, _ := ctx.Value(tokenKey{}).(*queue.APIToken)
	return tok
}

// HashToken is the SHA-256 of a token secret, the only form ever stored.
func HashToken(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// authenticate finds the request's token by the hash of its secret and
// checks it is live. Unknown, expired (ExpiresAt ≤ now) and revoked tokens
// are 401; a store failure is an error (500). The secret itself is dropped
// as soon as it is hashed.
func (a *API) authenticate(r *http.Request) (*queue.APIToken, error) {
	secret := r.Header.Get(TokenHeader)
	if secret == "" {
		return nil, unauthorized("missing API token: send it in the " + TokenHeader + " header")
	}
	hash := HashToken(secret)
	tok, err := a.tokens.TokenByHash(r.Context(), hash)
	if errors.Is(err, queue.ErrNotFound) {
		return nil, unauthorized("invalid API token")
	}
	if err != nil {
		return nil, fmt.Errorf("failed to look up API token: %w", err)
	}
	if tok == nil || subtle.ConstantTimeCompare(tok.Hash, hash) != 1 {
		return nil, unauthorized("invalid API token")
	}
	now := a.now()
	if !tok.RevokedAt.IsZero() {
		return nil, unauthorized("API token revoked")
	}
	if !tok.ExpiresAt.IsZero() && !now.Before(tok.ExpiresAt) {
		return nil, unauthorized("API token expired")
	}
	return tok, nil
}

// authorize checks that the request's token may act on repo: a token with
// neither Repos nor Owners may access every repository; otherwise repo's
// "owner/name" must be among Repos or its owner among Owners, compared
// case-insensitively (GitHub names are). Anything else is 403.
func authorize(ctx context.Context, repo queue.Repo) error {
	tok := tokenFrom(ctx)
	if tok == nil {
		return errors.New("authorize called without an authenticated token")
	}
	if tokenAllows(tok, repo) {
		return nil
	}
	return &apiError{Status: http.StatusForbidden,
		Msg: fmt.Sprintf("API token %q is not allowed for repository %s", tok.Name, repo.FullName())}
}

// tokenAllows reports whether tok's scope covers repo.
func tokenAllows(tok *queue.APIToken, repo queue.Repo) bool {
	if len(tok.Repos) == 0 && len(tok.Owners) == 0 {
		return true
	}
	full := repo.FullName()
	for _, r := range tok.Repos {
		if strings.EqualFold(r, full) {
			return true
		}
	}
	for _, o := range tok.Owners {
		if strings.EqualFold(o, repo.Owner) {
			return true
		}
	}
	return false
}

func unauthorized(msg string) error {
	return &apiError{Status: http.StatusUnauthorized, Msg: msg}
}
