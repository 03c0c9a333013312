package apitoken

import (
	"context"
	"time"

	"github.com/mergequeue/mq/queue/record"
)

// Token is a REST API token. Only the SHA-256 hash of its secret is kept.
// It is declared in queue/record (with its Access and Allows), which the
// stores share, so that they need not import this package.
type Token = record.Token

// Store is the durable store of API tokens.
type Store interface {
	// CreateToken stores t (queue.ErrExists if its ID or hash is taken).
	CreateToken(ctx context.Context, t Token) error
	// TokenByHash finds a token by the hash of its secret, revoked or
	// expired ones included (queue.ErrNotFound). It is called for every
	// request, so it may answer from a short-lived cache, provided that a
	// revocation made through the same store is seen at once (queue/sqlite
	// keeps found tokens for at most a second: the bound on a revocation
	// by another process).
	TokenByHash(ctx context.Context, hash []byte) (*Token, error)
	// TokenByID finds a token by its ID, revoked or expired ones included
	// (queue.ErrNotFound).
	TokenByID(ctx context.Context, id string) (*Token, error)
	// ListTokens returns every token, revoked ones included.
	ListTokens(ctx context.Context) ([]Token, error)
	// RevokeToken marks the token with this ID or name revoked (queue.ErrNotFound).
	RevokeToken(ctx context.Context, idOrName string, at time.Time) error
}

// Header is the HTTP header that carries an API token, on the REST API
// (seed §5) and the dashboard alike.
const Header = "x-api-token"
