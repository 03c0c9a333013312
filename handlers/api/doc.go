// Package api serves the /v1 REST API of the merge queue (seed-interface.md,
// SPEC §7): one POST operation per path, JSON in and out, authenticated by the
// x-api-token header and scoped per repository.
//
// Guarantees every operation keeps:
//   - success is exactly 200 with a JSON body (metrics excepted); write
//     operations answer {};
//   - errors are text/plain; charset=utf-8, one line, with the status SPEC §7
//     assigns (400, 401, 403, 404, 405, 409, 413, 500; 429 for requests
//     authenticated by x-forked-workflow-run-id alone); a 500 body is always
//     the generic "internal error", details go only to the log;
//   - request bodies are never read past 20 MiB;
//   - the API token is never logged; only its ID and name are.
//
// Exceptions: GET /v1/getMergeQueueMetrics answers the Prometheus text
// format (metrics.go), and setImpactedTargets also accepts the
// x-forked-workflow-run-id header instead of a token, confirmed with GitHub
// as the fork PR's own run and bounded by ForkRunLimits before any GitHub
// call (forked_run*.go). docs/api.md documents every operation.
//
// Each operation lives in its own file as a method of *API and is registered
// with one line in routes (api.go). Shared decoding is in decode.go, shared
// encoding in encode.go, error mapping in errors.go and authentication in
// auth.go. Tokens are issued and verified by package apitoken. Operations
// that change something call the queue's use cases (Service); those that do
// not, its read side (Reads, package queue/readside): service.go declares
// both.
package api
