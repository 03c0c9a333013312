package githubx

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mergequeue/mq/queue"
)

// ErrUnsafePath means a name would make a GitHub API path address another
// resource than the one meant ("..", ".", an empty segment, a slash in an
// owner or repository name, a control character). The request is never
// sent. Callers validate names first (queue.QueueKey.Validate); this is
// the last line of defence, so that no name can make the App call, say,
// GET /app/installations with its JWT.
var ErrUnsafePath = errors.New("unsafe GitHub API path")

// go-github v66 (github/*.go) builds paths with fmt.Sprintf and resolves
// them against BaseURL with url.Parse, which removes "." and ".."
// segments. It escapes none of owner, repo, a commit SHA (git/commits),
// a label (issues/{n}/labels/{l}) or a user (collaborators/{u}); it
// escapes a branch with url.PathEscape (branches/{b}/protection/...),
// refs and commit refs per "/"-separated component (git/ref(s)/{ref},
// commits/{ref}/...) and compare bases and heads with url.QueryEscape.
// None of those escapes "." so every value is checked here first, and the
// unescaped ones are escaped by the callers.

// repoPath is a repository's owner and name escaped for a URL path.
type repoPath struct{ owner, name string }

// escapedRepo escapes repo's owner and name for a URL path. Use it only on
// a repository checkRepoPath accepted (InstallationClient checks it).
func escapedRepo(repo queue.Repo) repoPath {
	return repoPath{owner: escapeSegment(repo.Owner), name: escapeSegment(repo.Name)}
}

// escapeSegment is url.PathEscape, except that a segment of only dots is
// percent-encoded too: url.Parse would resolve "." and "..", whereas
// PathGuardMiddleware refuses "%2E%2E". Checked values never are such a
// segment; this keeps a value that skipped its check from escaping.
func escapeSegment(s string) string {
	if s != "" && strings.Trim(s, ".") == "" {
		return strings.Repeat("%2E", len(s))
	}
	return url.PathEscape(s)
}

// checkRepoPath refuses an owner or name that is not one safe path
// segment: empty, ".", "..", holding a slash, a control character or
// invalid UTF-8.
func checkRepoPath(repo queue.Repo) error {
	for _, p := range []struct{ what, s string }{{"repository owner", repo.Owner}, {"repository name", repo.Name}} {
		if strings.Contains(p.s, "/") {
			return unsafePath(p.what, p.s, "holds a slash")
		}
		if err := checkPathText(p.what, p.s); err != nil {
			return err
		}
	}
	return nil
}

// segment checks s (checkPathText) and escapes it as one path segment,
// for the values go-github puts into paths unescaped.
func segment(what, s string) (string, error) {
	if err := checkPathText(what, s); err != nil {
		return "", err
	}
	return escapeSegment(s), nil
}

// checkPathText refuses a value for a URL path that is empty, holds a
// control character or invalid UTF-8, or has an empty, "." or ".."
// component between slashes (a slash is escaped or is a separator
// depending on the call; either way those components are refused).
func checkPathText(what, s string) error {
	switch {
	case s == "":
		return unsafePath(what, s, "is empty")
	case !utf8.ValidString(s):
		return unsafePath(what, s, "is not valid UTF-8")
	case strings.ContainsFunc(s, isControl):
		return unsafePath(what, s, "holds a control character")
	}
	for _, part := range strings.Split(s, "/") {
		if part == "" || part == "." || part == ".." {
			return unsafePath(what, s, `has an empty, "." or ".." path component`)
		}
	}
	return nil
}

func isControl(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }

func unsafePath(what, s, why string) error {
	return fmt.Errorf("%s %q %s: %w", what, s, why, ErrUnsafePath)
}

// PathGuardMiddleware refuses, without sending it, any request whose URL
// path has a segment that is "." or "..", also percent-encoded ("%2e%2e")
// or as a component of an encoded segment ("..%2F..%2Fapp"), a malformed
// escape, or, once unescaped, a control character or invalid UTF-8. The
// error wraps ErrUnsafePath. New installs it outermost on every client (the
// App's and each installation's), so a refused request mints no token and
// is not retried.
func PathGuardMiddleware(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if err := checkRequestPath(req.URL); err != nil {
			closeBody(req)
			return nil, fmt.Errorf("refusing to send %s: %w", req.Method, err)
		}
		return next.RoundTrip(req)
	})
}

// checkRequestPath applies PathGuardMiddleware's rules to u.
func checkRequestPath(u *url.URL) error {
	raw := u.EscapedPath()
	for _, seg := range strings.Split(raw, "/") {
		if seg == "." || seg == ".." {
			return unsafePath("path", raw, `has a "." or ".." segment`)
		}
		plain, err := url.PathUnescape(seg)
		if err != nil {
			return unsafePath("path", raw, "has a malformed escape")
		}
		if !utf8.ValidString(plain) || strings.ContainsFunc(plain, isControl) {
			return unsafePath("path", raw, "holds a control character or invalid UTF-8")
		}
		for _, part := range strings.Split(plain, "/") {
			if part == "." || part == ".." {
				return unsafePath("path", raw, `has an encoded "." or ".." segment`)
			}
		}
	}
	return nil
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
