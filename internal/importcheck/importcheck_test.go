package importcheck

import (
	"slices"
	"testing"
)

func TestMatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"example.com/app", "example.com/app", true},
		{"example.com/app", "example.com/app/notify", false},
		{"example.com/app", "example.com/apps", false},
		{"example.com/app/...", "example.com/app", true},
		{"example.com/app/...", "example.com/app/notify", true},
		{"example.com/app/...", "example.com/apps", false},
		{"example.com/app/...", "example.com/ap", false},
	}
	for _, tt := range tests {
		if got := Matches(tt.pattern, tt.path); got != tt.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// Deps sees indirect dependencies, not only direct imports: this package
// imports os/exec, which imports syscall.
func TestDepsAreTransitive(t *testing.T) {
	t.Parallel()
	deps := Deps(t, ".")
	for _, want := range []string{"github.com/mergequeue/mq/internal/importcheck", "os/exec", "syscall"} {
		if !slices.Contains(deps, want) {
			t.Errorf("deps lack %s: %v", want, deps)
		}
	}
}

// Forbid fails on a forbidden dependency, direct or not.
func TestForbidFails(t *testing.T) {
	t.Parallel()
	for _, forbidden := range []string{"os/exec", "syscall", "os/..."} {
		rec := &recorder{TB: t}
		Forbid(rec, ".", forbidden)
		if !rec.failed {
			t.Errorf("Forbid(%q) passed", forbidden)
		}
	}
	rec := &recorder{TB: t}
	Forbid(rec, ".", "net/http", "github.com/mergequeue/mq/queue/...")
	if rec.failed {
		t.Error("Forbid failed on packages not depended on")
	}
}

// recorder notes failures instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}
