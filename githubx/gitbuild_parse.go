package githubx

import (
	"fmt"
	"strconv"
	"strings"
)

// minGitMajor and minGitMinor are the oldest git the git builder runs
// with: `git merge-tree --write-tree` came with 2.38.
const (
	minGitMajor = 2
	minGitMinor = 38
)

// parseGitVersion reads `git version`'s output ("git version 2.39.5",
// "git version 2.39.3 (Apple Git-146)", "git version 2.45.0.windows.1").
func parseGitVersion(out string) (major, minor int, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(out), "git version ")
	if !ok {
		return 0, 0, fmt.Errorf("unrecognised git version %q", out)
	}
	v, _, _ := strings.Cut(rest, " ")
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return 0, 0, fmt.Errorf("unrecognised git version %q", out)
	}
	if major, err = strconv.Atoi(parts[0]); err != nil || major < 0 {
		return 0, 0, fmt.Errorf("unrecognised git version %q", out)
	}
	if minor, err = strconv.Atoi(parts[1]); err != nil || minor < 0 {
		return 0, 0, fmt.Errorf("unrecognised git version %q", out)
	}
	return major, minor, nil
}

// gitVersionOK reports whether major.minor is at least 2.38.
func gitVersionOK(major, minor int) bool {
	return major > minGitMajor || major == minGitMajor && minor >= minGitMinor
}

// parseMissing reads `git cat-file --batch-check`'s answer for the
// commits asked in order and returns those the clone lacks ("<sha>
// missing"); an object that is there but not a commit is an error.
func parseMissing(asked []string, out string) ([]string, error) {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != len(asked) {
		return nil, fmt.Errorf("cat-file answered %d lines for %d objects", len(lines), len(asked))
	}
	var missing []string
	for i, want := range asked {
		line := lines[i]
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == want && f[1] == "missing":
			missing = append(missing, want)
		case len(f) == 3 && f[0] == want && f[1] == "commit":
		case len(f) == 3 && f[0] == want:
			return nil, fmt.Errorf("%s is a %s, not a commit", want, f[1])
		default:
			return nil, fmt.Errorf("unexpected cat-file answer %q for %s", line, want)
		}
	}
	return missing, nil
}

// parseMergeTree reads `git merge-tree --write-tree --no-messages`'s
// first line: the merged tree's id.
func parseMergeTree(out string) (string, error) {
	first, _, _ := strings.Cut(out, "\n")
	first = strings.TrimSpace(first)
	if !isObjectID(first) {
		return "", fmt.Errorf("unexpected merge-tree output %q", first)
	}
	return first, nil
}

// pushStatus is one ref's line of `git push --porcelain`.
type pushStatus struct {
	Flag    byte   // ' ' fast-forward, '+' forced, '-' deleted, '*' new, '=' up to date, '!' rejected
	Ref     string // the remote ref
	Summary string // e.g. "[rejected] (stale info)"
}

// parsePushPorcelain reads `git push --porcelain`'s ref lines
// ("<flag>\t<from>:<to>\t<summary>"); other lines ("To <url>", "Done")
// are skipped.
func parsePushPorcelain(out string) []pushStatus {
	var st []pushStatus
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 || len(f[0]) != 1 || !strings.Contains("+-*=! ", f[0]) {
			continue
		}
		_, to, ok := strings.Cut(f[1], ":")
		if !ok || to == "" {
			continue
		}
		st = append(st, pushStatus{Flag: f[0][0], Ref: to, Summary: f[2]})
	}
	return st
}

// isObjectID reports whether s is a full SHA-1 object id in lower case.
func isObjectID(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
