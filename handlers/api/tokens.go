package api

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

// TokenPrefix starts every API token secret, so leaked tokens are easy to
// recognise (and to scan for).
const TokenPrefix = "mq_"

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

// IssueToken creates an API token named name and stores it; only the
// SHA-256 of the secret is kept, so the returned secret ("mq_" + 52
// base32 characters of 32 random bytes) must be shown to the user now or
// never. repos ("owner/name") and owners restrict the token; both empty
// means every repository. ttl > 0 sets an expiry of now+ttl, 0 means none.
// Invalid arguments and a name already used by a token that is not revoked
// are *queue.InputError.
func IssueToken(ctx context.Context, store queue.Tokens, name string, repos, owners []string,
	ttl time.Duration, now time.Time) (string, queue.APIToken, error) {
	tok, err := newTokenSpec(name, repos, owners, ttl, now)
	if err != nil {
		return "", queue.APIToken{}, err
	}
	existing, err := store.ListTokens(ctx)
	if err != nil {
		return "", queue.APIToken{}, fmt.Errorf("failed to list API tokens: %w", err)
	}
	for _, t := range existing {
		if t.Name == tok.Name && t.RevokedAt.IsZero() {
			return "", queue.APIToken{}, queue.Inputf("an API token named %q already exists (revoke it first)", tok.Name)
		}
	}
	raw := make([]byte, secretBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", queue.APIToken{}, fmt.Errorf("failed to generate API token secret: %w", err)
	}
	secret := TokenPrefix + strings.ToLower(secretEncoding.EncodeToString(raw))
	tok.ID = uuid.NewString()
	tok.Hash = HashToken(secret)
	if err := store.CreateToken(ctx, tok); err != nil {
		return "", queue.APIToken{}, fmt.Errorf("failed to store API token %q: %w", tok.Name, err)
	}
	return secret, tok, nil
}

// newTokenSpec validates and normalises everything of a token but its
// identity and secret.
func newTokenSpec(name string, repos, owners []string, ttl time.Duration, now time.Time) (queue.APIToken, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return queue.APIToken{}, queue.Inputf("token name is required")
	}
	if len(name) > 100 || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return queue.APIToken{}, queue.Inputf("token name %q must be at most 100 printable characters", name)
	}
	if ttl < 0 {
		return queue.APIToken{}, queue.Inputf("token lifetime must not be negative, got %s", ttl)
	}
	tok := queue.APIToken{Name: name, CreatedAt: now.UTC()}
	if ttl > 0 {
		tok.ExpiresAt = now.Add(ttl).UTC()
	}
	for _, r := range repos {
		r = strings.TrimSpace(r)
		owner, repo, ok := strings.Cut(r, "/")
		if !ok || !ownerPattern.MatchString(owner) || !repoNamePattern.MatchString(repo) || repo == "." || repo == ".." {
			return queue.APIToken{}, queue.Inputf("repository %q must have the form owner/name", r)
		}
		tok.Repos = append(tok.Repos, r)
	}
	for _, o := range owners {
		o = strings.TrimSpace(o)
		if !ownerPattern.MatchString(o) {
			return queue.APIToken{}, queue.Inputf("owner %q is not a valid GitHub user or organisation name", o)
		}
		tok.Owners = append(tok.Owners, o)
	}
	return tok, nil
}
