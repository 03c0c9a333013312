// Package settingdecl declares every queue setting once (All): its API
// field, Go field, stored key, type, default, bounds, validation, how
// getQueue shows it, its documentation, a value tests write, and whether
// the randomized invariant suite draws it.
//
// What follows from it is generated: `go generate ./queue/settingdecl`
// (the gen command) writes queue.Settings, queue.DefaultSettings,
// queue.QueueUpdate and the validation of each field (queue/
// settings_gen.go), the REST API's request and response fields
// (handlers/api/queue_settings_gen.go) and the stored SQLite document
// (queue/sqlite/settings_gen.go); a test in gen fails when a generated
// file is not what the declaration generates.
//
// Adding a setting: declare it in All, run go generate, use its field in
// the engine (and, for a Check or WriteCheck, write that function in
// package queue), and test what it does.
package settingdecl
