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
//     jittered exponential backoff; a write that failed with a 5xx is never
//     retried, because its outcome is unknown.
//   - Each installation has a budget (Budget, GitHub's secondary limits by
//     default: concurrent requests, points per minute, content-generating
//     requests per minute and per hour). Requests wait for it instead of
//     being refused, granted by class (WriteClass: merges and test-run
//     refs, then queue progress, then surfaces; FIFO within a class); a
//     caller may wait before composing a write (ReserveWrite), so only the
//     newest state is written. A rate-limit answer (403 or 429 saying
//     "secondary rate limit", any 429, a 403 with x-ratelimit-remaining: 0)
//     pauses every request of the installation for the window GitHub asks
//     (retry-after, else x-ratelimit-reset, else one minute; doubling on
//     repeated secondary limits), and the refused request, which GitHub
//     did not apply, is sent again after it: no request of the
//     installation is sent inside the window, and none fails because of
//     it. Only the caller's context bounds these waits.
//   - Errors are wrapped with what failed and classified with the queue's
//     variables: queue.ErrPRNotFound, queue.ErrBaseModified,
//     queue.ErrHeadMoved, queue.ErrTransient (5xx, network errors, timeouts,
//     rate limits: re-read state before retrying a write),
//     *queue.RejectedError and *queue.ConflictError. The underlying
//     go-github error stays reachable with errors.As.
package githubx
