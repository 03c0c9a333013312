// Package settingdecl declares every queue setting once (All): its API
// field, Go field, stored key, type, default, bounds, validation, how
// getQueue shows it, its documentation, a value tests write, and whether
// the randomized invariant suite draws it.
//
// Everything else follows from it. `go generate ./queue/settingdecl` (the
// gen command) writes queue.Settings, queue.DefaultSettings,
// queue.QueueUpdate and the per-field validation (queue/settings_gen.go),
// the REST API's request and response fields (handlers/api/
// queue_settings_gen.go), the stored settings document (queue/sqlstore/
// settings_gen.go) and the settings table of docs/api.md; a test in gen
// fails when any of them is not what the declaration generates. Tests in
// handlers/api write every declared field through createQueue and
// updateQueue and read it back with getQueue, and a test in queue/sim
// checks SimFixed against what the suite draws.
//
// Adding a setting: declare it in All, run go generate, use its field in
// the engine (and, for a Check or WriteCheck, write that function in
// package queue), and test what it does.
package settingdecl
