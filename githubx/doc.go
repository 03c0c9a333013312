// Package githubx is the queue's GitHub port: it implements queue.GitHub on
// go-github v66 with clients created by go-githubapp, authenticated as a
// GitHub App installation.
//
// Guarantees:
//   - Reads are never served from a cache: every call goes to GitHub, so
//     merge decisions see fresh PR heads, mergeability and branch heads.
//   - The installation of each repository is resolved once and cached; the
//     cache entry is dropped when GitHub answers 401 or 404, so a
//     reinstalled App heals on the next call.
//   - Every client goes through one retry middleware (RetryMiddleware):
//     idempotent reads are retried on 5xx and network errors with bounded,
//     jittered exponential backoff; any request hit by a rate limit (403 or
//     429 with Retry-After or x-ratelimit-remaining: 0) waits for the
//     announced reset when it is short and is retried once; a write that
//     failed with a 5xx is never retried, because its outcome is unknown.
//   - Errors are wrapped with what failed and classified with the queue's
//     variables: queue.ErrPRNotFound, queue.ErrBaseModified,
//     queue.ErrHeadMoved, queue.ErrTransient (5xx, network errors, timeouts,
//     rate limits: re-read state before retrying a write),
//     *queue.RejectedError and *queue.ConflictError. The underlying
//     go-github error stays reachable with errors.As.
package githubx
