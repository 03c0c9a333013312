// Package apitoken issues and verifies the tokens of the /v1 REST API.
//
// Guarantees:
//   - A secret ("mq_" + 52 base32 characters of 32 random bytes) is returned
//     once, by Issue, and never stored: the Store keeps only its SHA-256
//     (Hash), so a leaked database does not leak working tokens.
//   - Verify finds a token by that hash, compares it in constant time and
//     refuses a revoked or expired one; its refusals (ErrInvalid, ErrRevoked,
//     ErrExpired) never quote the secret.
//   - A token is scoped to repositories ("owner/name") and owners, or to
//     every repository when it names neither (Token.Allows); names compare
//     case-insensitively, as on GitHub.
//   - A token has full access, or is read-only (Token.ReadOnly): the API's
//     write operations refuse a read-only token; reads, the dashboard and
//     the browser extension's status accept it.
//
// The Store is implemented by queue/sqlite; handlers/api authenticates
// requests with Verify and `bot token` manages tokens. This package imports
// neither.
package apitoken
