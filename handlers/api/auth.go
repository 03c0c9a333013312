package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/queue"
)

// TokenHeader carries the API token (seed §5). An absent and an empty header
// are the same: 401.
const TokenHeader = apitoken.Header

type tokenKey struct{}

func withToken(ctx context.Context, tok *apitoken.Token) context.Context {
	return context.WithValue(ctx, tokenKey{}, tok)
}

// tokenFrom returns the authenticated token of the request (nil outside an
// authenticated operation).
func tokenFrom(ctx context.Context) *apitoken.Token {
	tok, _ := ctx.Value(tokenKey{}).(*apitoken.Token)
	return tok
}

// authenticate returns the request's live token (apitoken.Verify). A
// missing token is 401 saying so; an unknown, revoked or expired one is 401
// with the same message for all three (apitoken.RefusalMessage), the reason
// logged at info level with the token's ID when there is one, never the
// secret. A store failure is an error (500).
func (a *API) authenticate(r *http.Request) (*apitoken.Token, error) {
	secret := r.Header.Get(TokenHeader)
	if secret == "" {
		return nil, unauthorized("missing API token: send it in the " + TokenHeader + " header")
	}
	tok, err := apitoken.Verify(r.Context(), a.tokens, secret, a.now())
	switch {
	case apitoken.IsRefusal(err):
		ev := loggerFrom(r.Context()).Info().Str("reason", err.Error())
		if id := apitoken.RefusedTokenID(err); id != "" {
			ev = ev.Str("token_id", id)
		}
		ev.Msg("refused an API token")
		return nil, unauthorized(apitoken.RefusalMessage)
	case err != nil:
		return nil, err
	}
	return tok, nil
}

// authorize checks that the request's token may act on repo
// (apitoken.Token.Allows); anything else is 403.
func authorize(ctx context.Context, repo queue.Repo) error {
	tok := tokenFrom(ctx)
	if tok == nil {
		return errors.New("authorize called without an authenticated token")
	}
	if tok.Allows(repo) {
		return nil
	}
	return &apiError{Status: http.StatusForbidden,
		Msg: fmt.Sprintf("API token %q is not allowed for repository %s", tok.Name, repo.FullName())}
}

func unauthorized(msg string) error {
	return &apiError{Status: http.StatusUnauthorized, Msg: msg}
}

// readOnlyRefusal is the 403 of a read-only token on a write operation.
func readOnlyRefusal(tok *apitoken.Token, op string) error {
	return &apiError{Status: http.StatusForbidden,
		Msg: fmt.Sprintf("API token %q is read-only: %s changes the queue and needs a token with full access", tok.Name, op)}
}
