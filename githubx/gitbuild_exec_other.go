//go:build !unix

package githubx

import "os/exec"

// ownGroup leaves cmd as it is: process groups are a unix notion, and
// cancelling kills git alone (exec.CommandContext's default).
func ownGroup(*exec.Cmd) {}
