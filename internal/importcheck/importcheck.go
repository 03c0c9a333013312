// Package importcheck lets a package's tests hold its dependency direction:
// they fail when it comes to depend, directly or not, on a package it must
// not know (the store that implements its ports, the application that
// wires it).
package importcheck

import (
	"os/exec"
	"strings"
	"testing"
)

// Deps returns the import paths pkg depends on, directly or not, pkg
// included, as `go list -deps` prints them. pkg is an import path or a
// directory ("." in a test: the package under test).
func Deps(t testing.TB, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("failed to list the dependencies of %s: %v\n%s", pkg, err, stderr)
	}
	return strings.Fields(string(out))
}

// Forbid fails t for every package among pkg's dependencies that matches
// one of forbidden: an import path, or a path ending in "/..." for it and
// every package under it (as in go list patterns).
func Forbid(t testing.TB, pkg string, forbidden ...string) {
	t.Helper()
	for _, dep := range Deps(t, pkg) {
		for _, f := range forbidden {
			if Matches(f, dep) {
				t.Errorf("%s depends on %s (forbidden: %s)", pkg, dep, f)
			}
		}
	}
}

// Matches reports whether the import path matches pattern: the path
// itself, or with a "/..." suffix the path and every package under it.
func Matches(pattern, path string) bool {
	if root, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == root || strings.HasPrefix(path, root+"/")
	}
	return path == pattern
}
