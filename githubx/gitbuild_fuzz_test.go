package githubx

import (
	"strings"
	"testing"
)

// FuzzParseGitVersion: any `git version` output parses to non-negative
// numbers or an error, and the known shapes parse as git prints them.
func FuzzParseGitVersion(f *testing.F) {
	for _, s := range []string{"git version 2.39.5\n", "git version 2.39.3 (Apple Git-146)", "git version 2.45.0.windows.1",
		"git version 2.37.1", "git version 3", "", "git version .1.2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		major, minor, err := parseGitVersion(out)
		if err != nil {
			return
		}
		if major < 0 || minor < 0 || !strings.HasPrefix(strings.TrimSpace(out), "git version ") {
			t.Fatalf("%q parsed as %d.%d", out, major, minor)
		}
	})
}

func TestParseGitVersion(t *testing.T) {
	for in, want := range map[string]bool{"git version 2.39.5\n": true, "git version 2.38.0": true, "git version 2.37.9": false,
		"git version 3.0.0": true, "git version 1.99.0": false, "git version 2.45.0.windows.1": true} {
		major, minor, err := parseGitVersion(in)
		if err != nil || gitVersionOK(major, minor) != want {
			t.Errorf("%q: %d.%d %v, want ok=%v", in, major, minor, err, want)
		}
	}
}

// FuzzParsePushPorcelain: `git push --porcelain` output never panics and
// every status names a ref with a known flag.
func FuzzParsePushPorcelain(f *testing.F) {
	f.Add("To http://h/o/r.git\n*\tabc:refs/heads/x\t[new branch]\n-\t:refs/heads/y\t[deleted]\nDone\n")
	f.Add("To http://h/o/r.git\n!\tabc:refs/heads/x\t[rejected] (atomic push failed)\nDone\n")
	f.Add("+\t:\t\n")
	f.Fuzz(func(t *testing.T, out string) {
		for _, st := range parsePushPorcelain(out) {
			if st.Ref == "" || !strings.ContainsRune("+-*=! ", rune(st.Flag)) {
				t.Fatalf("bad status %+v", st)
			}
		}
	})
}

func TestParsePushPorcelain(t *testing.T) {
	st := parsePushPorcelain("To http://h/o/r.git\n!\tabc:refs/heads/x\t[rejected] (stale info)\n-\t:refs/heads/y\t[deleted]\nDone\n")
	if len(st) != 2 || st[0].Flag != '!' || st[0].Ref != "refs/heads/x" || st[1].Flag != '-' || st[1].Ref != "refs/heads/y" {
		t.Fatalf("parsed %+v", st)
	}
}

// FuzzParseMissing: cat-file's answer never panics, and a commit is
// reported missing only when it was asked for.
func FuzzParseMissing(f *testing.F) {
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	f.Add(a+" missing\n"+b+" commit 212\n", 2)
	f.Add(a+" tree 33\n", 1)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, out string, n int) {
		asked := []string{a, b}[:min(max(n, 0), 2)]
		missing, err := parseMissing(asked, out)
		if err != nil {
			return
		}
		for _, m := range missing {
			if m != a && m != b {
				t.Fatalf("reported %q missing", m)
			}
		}
	})
}

func TestParseMissing(t *testing.T) {
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	got, err := parseMissing([]string{a, b}, a+" commit 10\n"+b+" missing\n")
	if err != nil || len(got) != 1 || got[0] != b {
		t.Fatalf("got %v %v", got, err)
	}
	if _, err := parseMissing([]string{a}, a+" tree 10\n"); err == nil {
		t.Fatal("a tree accepted as a commit")
	}
}
