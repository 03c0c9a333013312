package apitoken

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mergequeue/mq/queue"
)

// Prefix starts every API token secret, so leaked tokens are easy to
// recognise (and to scan for).
const Prefix = "mq_"

// secretBytes is the entropy of a token secret.
const secretBytes = 32

var (
	// ownerPattern: a GitHub user or organisation login (underscores occur
	// on GitHub Enterprise managed users).
	ownerPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,38}$`)
	// repoNamePattern: a GitHub repository name.
	repoNamePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
)

var secretEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// IssueOption adjusts a token being issued.
type IssueOption func(*Token)

// ReadOnly issues a read-only token (Token.ReadOnly).
func ReadOnly() IssueOption { return func(t *Token) { t.ReadOnly = true } }

// Issue creates an API token named name and stores it; only the SHA-256 of
// the secret is kept, so the returned secret ("mq_" + 52 base32 characters
// of 32 random bytes) must be shown to the user now or never. repos
// ("owner/name") and owners restrict the token; both empty means every
// repository. ttl > 0 sets an expiry of now+ttl, 0 means none. A token has
// full access unless ReadOnly is given. Invalid arguments and a name already
// used by a token that is not revoked are *queue.InputError.
func Issue(ctx context.Context, store Store, name string, repos, owners []string,
	ttl time.Duration, now time.Time, opts ...IssueOption) (string, Token, error) {
	tok, err := newSpec(name, repos, owners, ttl, now)
	if err != nil {
		return "", Token{}, err
	}
	for _, o := range opts {
		o(&tok)
	}
	existing, err := store.ListTokens(ctx)
	if err != nil {
		return "", Token{}, fmt.Errorf("failed to list API tokens: %w", err)
	}
	for _, t := range existing {
		if t.Name == tok.Name && t.RevokedAt.IsZero() {
			return "", Token{}, queue.Inputf("an API token named %q already exists (revoke it first)", tok.Name)
		}
	}
	raw := make([]byte, secretBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", Token{}, fmt.Errorf("failed to generate API token secret: %w", err)
	}
	secret := Prefix + strings.ToLower(secretEncoding.EncodeToString(raw))
	tok.ID = uuid.NewString()
	tok.Hash = Hash(secret)
	if err := store.CreateToken(ctx, tok); err != nil {
		return "", Token{}, fmt.Errorf("failed to store API token %q: %w", tok.Name, err)
	}
	return secret, tok, nil
}

// newSpec validates and normalises everything of a token but its
// identity and secret.
func newSpec(name string, repos, owners []string, ttl time.Duration, now time.Time) (Token, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Token{}, queue.Inputf("token name is required")
	}
	if len(name) > 100 || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return Token{}, queue.Inputf("token name %q must be at most 100 printable characters", name)
	}
	if ttl < 0 {
		return Token{}, queue.Inputf("token lifetime must not be negative, got %s", ttl)
	}
	tok := Token{Name: name, CreatedAt: now.UTC()}
	if ttl > 0 {
		tok.ExpiresAt = now.Add(ttl).UTC()
	}
	for _, r := range repos {
		r = strings.TrimSpace(r)
		owner, repo, ok := strings.Cut(r, "/")
		if !ok || !ownerPattern.MatchString(owner) || !repoNamePattern.MatchString(repo) || repo == "." || repo == ".." {
			return Token{}, queue.Inputf("repository %q must have the form owner/name", r)
		}
		tok.Repos = append(tok.Repos, r)
	}
	for _, o := range owners {
		o = strings.TrimSpace(o)
		if !ownerPattern.MatchString(o) {
			return Token{}, queue.Inputf("owner %q is not a valid GitHub user or organisation name", o)
		}
		tok.Owners = append(tok.Owners, o)
	}
	return tok, nil
}
