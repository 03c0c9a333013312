package crashpoint

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		spec string
		want map[string]int64 // name → hit to crash at; nil = nothing armed
	}{
		{"", nil},
		{" , ,", nil},
		{"merge-applied", map[string]int64{"merge-applied": 1}},
		{"a@3", map[string]int64{"a": 3}},
		{" a @ 2 , b ", map[string]int64{"a": 2, "b": 1}},
		{"a@5,a@2,b@1", map[string]int64{"a": 2, "b": 1}},
		{"a@2,a", map[string]int64{"a": 1}},
	}
	for _, tc := range tests {
		got, err := parse(tc.spec)
		if err != nil {
			t.Errorf("parse(%q): %v", tc.spec, err)
			continue
		}
		if (got == nil) != (tc.want == nil) || len(got) != len(tc.want) {
			t.Errorf("parse(%q) armed %d points (nil %v), want %v", tc.spec, len(got), got == nil, tc.want)
			continue
		}
		for name, at := range tc.want {
			if p := got[name]; p == nil || p.at != at {
				t.Errorf("parse(%q)[%q] = %+v, want crash at hit %d", tc.spec, name, p, at)
			}
		}
	}
}

func TestParseRefusesMalformed(t *testing.T) {
	for _, spec := range []string{"a@0", "a@-1", "a@x", "a@", "@2", "a,@", "a@1.5"} {
		if _, err := parse(spec); err == nil || !strings.Contains(err.Error(), Env) {
			t.Errorf("parse(%q) = %v, want an error naming %s", spec, err, Env)
		}
	}
}

// Unset, Hit is a no-op that allocates nothing.
func TestHitUnsetCostsNothing(t *testing.T) {
	if armed != nil {
		t.Skipf("%s is set in this test's environment", Env)
	}
	if n := testing.AllocsPerRun(1000, func() { Hit(MergeApplied) }); n != 0 {
		t.Errorf("Hit allocates %v times per call when unset, want 0", n)
	}
}

// Armed, Hit counts per name and crashes only at the named hit (a point
// armed beyond the hits made never fires).
func TestHitCountsPerName(t *testing.T) {
	saved := armed
	t.Cleanup(func() { armed = saved })
	p, err := parse("a@1000,b@1000")
	if err != nil {
		t.Fatal(err)
	}
	armed = p
	for range 10 {
		Hit("a")
		Hit("unarmed")
	}
	Hit("b")
	if got := armed["a"].hits.Load(); got != 10 {
		t.Errorf("a counted %d hits, want 10", got)
	}
	if got := armed["b"].hits.Load(); got != 1 {
		t.Errorf("b counted %d hits, want 1", got)
	}
}

func TestNamesAreDistinctAndParse(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range Names {
		if seen[n] {
			t.Errorf("point %q listed twice", n)
		}
		seen[n] = true
		if p, err := parse(n + "@2"); err != nil || p[n] == nil {
			t.Errorf("parse(%q@2) = %v, %v", n, p, err)
		}
	}
}

func BenchmarkHitUnset(b *testing.B) {
	if armed != nil {
		b.Skipf("%s is set", Env)
	}
	for b.Loop() {
		Hit(ScratchRefCreated)
	}
}
