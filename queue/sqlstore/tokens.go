package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/record"
)

// tokenColumns lists the api_tokens table's columns. Scopes are JSON,
// keeping nil distinct from empty.
func tokenColumns(t *record.Token) []column {
	return []column{
		{"id", t.ID, &t.ID},
		{"name", t.Name, &t.Name},
		{"hash", t.Hash, &t.Hash},
		{"repos", jsonVal{t.Repos}, jsonScan{&t.Repos}},
		{"owners", jsonVal{t.Owners}, jsonScan{&t.Owners}},
		{"read_only", t.ReadOnly, &t.ReadOnly},
		{"created_at", timeVal(t.CreatedAt), timeScan{&t.CreatedAt}},
		{"expires_at", timeVal(t.ExpiresAt), timeScan{&t.ExpiresAt}},
		{"revoked_at", timeVal(t.RevokedAt), timeScan{&t.RevokedAt}},
	}
}

var (
	tokenCols   = tokenColumns(&record.Token{})
	tokenInsert = insertSQL("api_tokens", tokenCols, "")
	tokenSelect = "SELECT " + selectList(tokenCols, "") + " FROM api_tokens"
	tokenByHash = tokenSelect + " WHERE hash = ?"
	tokenByID   = tokenSelect + " WHERE id = ?"
	tokenList   = tokenSelect + " ORDER BY created_at NULLS FIRST, id"
)

func scanToken(sc interface{ Scan(...any) error }) (record.Token, error) {
	var t record.Token
	err := sc.Scan(columnDests(tokenColumns(&t))...)
	return t, err
}

// CreateToken stores t. queue.ErrExists if its ID or its hash is taken;
// names need not be unique.
func (o *ops) CreateToken(ctx context.Context, t record.Token) error {
	if t.ID == "" || len(t.Hash) == 0 {
		return fmt.Errorf("failed to create token %q: ID and hash are required", t.Name)
	}
	if _, err := o.wr.ExecContext(ctx, tokenInsert, columnArgs(tokenColumns(&t))...); err != nil {
		return fmt.Errorf("failed to create token %s (%q): %w", t.ID, t.Name, o.existsErr(err))
	}
	o.tokensChanged()
	return nil
}

// TokenByHash finds a token by the hash of its secret, revoked or expired
// ones included (the caller decides); queue.ErrNotFound if none.
func (o *ops) TokenByHash(ctx context.Context, hash []byte) (*record.Token, error) {
	t, err := scanToken(o.rd.QueryRowContext(ctx, tokenByHash, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("token: %w", queue.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to look up token: %w", err)
	}
	return &t, nil
}

// TokenByID finds a token by its ID, revoked or expired ones included;
// queue.ErrNotFound if none.
func (o *ops) TokenByID(ctx context.Context, id string) (*record.Token, error) {
	t, err := scanToken(o.rd.QueryRowContext(ctx, tokenByID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("token %s: %w", id, queue.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to look up token %s: %w", id, err)
	}
	return &t, nil
}

// ListTokens returns every token, revoked ones included, oldest first.
func (o *ops) ListTokens(ctx context.Context) ([]record.Token, error) {
	rows, err := o.rd.QueryContext(ctx, tokenList)
	if err != nil {
		return nil, fmt.Errorf("failed to list tokens: %w", err)
	}
	out, err := collect(rows, scanToken)
	if err != nil {
		return nil, fmt.Errorf("failed to list tokens: %w", err)
	}
	return out, nil
}

// RevokeToken marks revoked the token whose ID is idOrName or, when no ID
// matches, every token with that name. A token already revoked keeps its
// first revocation time. queue.ErrNotFound if nothing matches.
func (o *ops) RevokeToken(ctx context.Context, idOrName string, at time.Time) error {
	if at.IsZero() {
		return fmt.Errorf("failed to revoke token %q: zero revocation time", idOrName)
	}
	res, err := o.wr.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?1)
		WHERE id = ?2 OR (name = ?2 AND NOT EXISTS (SELECT 1 FROM api_tokens WHERE id = ?2))`,
		timeVal(at), idOrName)
	if err != nil {
		return fmt.Errorf("failed to revoke token %q: %w", idOrName, err)
	}
	o.tokensChanged()
	if err := rowsAffected(res); err != nil {
		return fmt.Errorf("failed to revoke token %q: %w", idOrName, err)
	}
	return nil
}
