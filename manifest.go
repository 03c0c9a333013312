// Package mq holds what the repository keeps at its root for the binary:
// the GitHub App manifest (app.yml), embedded so that `bot setup` needs no
// checkout.
package mq

import _ "embed" // for AppManifest

// AppManifest is app.yml: the GitHub App manifest (name, permissions,
// events) without the URLs of a deployment, which `bot setup` adds.
//
//go:embed app.yml
var AppManifest []byte
