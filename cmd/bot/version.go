package main

import (
	"runtime/debug"
)

// buildVersion is the version this binary reports: the one set with
// -ldflags "-X main.version=…" (the Dockerfile sets it), else the module
// version go install recorded, else the VCS revision go build recorded
// ("dev+<12 hex>", "-dirty" for uncommitted changes), else "dev".
func buildVersion() string {
	if version != "dev" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return version
	}
	return "dev+" + rev[:min(12, len(rev))] + dirty
}
