// Package sandbox runs the whole merge queue locally: a fake GitHub on real
// git repositories with simulated CI, and the real app wired to it over
// loopback HTTP (signed webhooks one way, the REST API the other). It backs
// `bot sandbox` and the end-to-end tests; no GitHub account is needed.
package sandbox
