package record

import (
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Token is a REST API token. Only the SHA-256 hash of its secret is kept.
type Token struct {
	ID     string
	Name   string
	Hash   []byte   // SHA-256 of the secret
	Repos  []string // "owner/name"; empty with Owners empty = every repo
	Owners []string
	// ReadOnly tokens may read (the API's read operations, the dashboard,
	// the browser extension's status) but not change anything: the API's
	// write operations refuse them (403).
	ReadOnly  bool
	CreatedAt time.Time
	ExpiresAt time.Time // zero = never
	RevokedAt time.Time // zero = not revoked
}

// Access names what the token may do: "read-only" or "full".
func (t Token) Access() string {
	if t.ReadOnly {
		return "read-only"
	}
	return "full"
}

// Allows reports whether the token's scope covers repo: a token with
// neither Repos nor Owners covers every repository; otherwise repo's
// "owner/name" must be among Repos or its owner among Owners, compared
// case-insensitively (GitHub names are).
func (t Token) Allows(repo queue.Repo) bool {
	if len(t.Repos) == 0 && len(t.Owners) == 0 {
		return true
	}
	full := repo.FullName()
	for _, r := range t.Repos {
		if strings.EqualFold(r, full) {
			return true
		}
	}
	for _, o := range t.Owners {
		if strings.EqualFold(o, repo.Owner) {
			return true
		}
	}
	return false
}
