// Package app wires the merge queue into one process: it loads and validates
// the configuration (YAML with environment overrides, see Config), builds the
// logger, the store and the GitHub clients, serves HTTP (the GitHub webhook
// endpoint, the /v1 REST API, /metrics, /healthz, /readyz and the dashboard
// of package app/dashboard, wired to the store, the service and GitHub),
// and runs one worker per queue that calls the engine, plus the
// reconciliation that re-reads GitHub on an interval so missed webhooks
// delay a queue by at most that interval.
//
// Nothing outside this package knows about HTTP muxes or process lifecycle;
// cmd/bot only parses flags and calls into app.
package app
