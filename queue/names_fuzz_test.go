package queue_test

import (
	"errors"
	"net/url"
	"path"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mergequeue/mq/queue"
)

// The checks below restate the naming rules independently of names.go
// (regular expressions, path resolution as go-github does it), so a fuzzer
// finds any name the validators accept that could escape a URL path.

// apiBase is where go-github resolves request paths from.
var apiBase = mustParse("https://api.example.com/api/v3/")

func mustParse(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// resolvedPath builds a path the way go-github does (fmt.Sprintf, then
// BaseURL.Parse, which removes dot segments) and returns the decoded path.
func resolvedPath(rel string) (string, bool) {
	u, err := apiBase.Parse(rel)
	if err != nil {
		return "", false
	}
	return u.Path, true
}

// checkRejection checks that a refusal is a one-line *NameError naming
// field.
func checkRejection(t *testing.T, err error, field string) {
	t.Helper()
	var ne *queue.NameError
	if !errors.As(err, &ne) || ne.Field != field || !errors.Is(err, queue.ErrInvalidName) {
		t.Fatalf("error %v (%T) is not a *NameError for %s", err, err, field)
	}
	if msg := err.Error(); !utf8.ValidString(msg) || strings.ContainsFunc(msg, func(r rune) bool {
		return r < 0x20 || r == 0x7f || (r >= utf8.RuneSelf && !unicode.IsPrint(r) && r != '…')
	}) {
		t.Fatalf("message %q is not one printable line", msg)
	}
}

// bidiControls are the Unicode bidirectional formatting characters
// (Trojan Source, CVE-2021-42574).
const bidiControls = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

func FuzzValidateBranch(f *testing.F) {
	for _, c := range branchCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, b string) {
		err := queue.ValidateBranch(b)
		if err != nil {
			checkRejection(t, err, "targetBranch")
			return
		}
		switch {
		case b == "" || len(b) > queue.MaxBranchLen || !utf8.ValidString(b):
			t.Fatalf("accepted %q: empty, too long or invalid UTF-8", b)
		case strings.Contains(b, "..") || strings.Contains(b, "@{") || b == "@" || b == "HEAD":
			t.Fatalf("accepted %q: holds .. or @{, or is @ or HEAD", b)
		case strings.ContainsAny(b, " ~^:?*[\\"+bidiControls) || strings.HasPrefix(b, "-"):
			t.Fatalf("accepted %q: a character git or we forbid, or a leading hyphen", b)
		case strings.ContainsFunc(b, func(r rune) bool { return r < 0x20 || r == 0x7f || !unicode.IsPrint(r) && r != ' ' }):
			t.Fatalf("accepted %q: a control or non-printable character", b)
		case strings.HasSuffix(b, "."):
			t.Fatalf("accepted %q: ends with a dot", b)
		}
		// As a path: already clean, with no empty, dot or dot-dot segment.
		if full := "refs/heads/" + b; path.Clean(full) != full {
			t.Fatalf("accepted %q: refs/heads/%s is not a clean path", b, b)
		}
		for _, seg := range strings.Split(b, "/") {
			if seg == "" || seg[0] == '.' || strings.HasSuffix(seg, ".lock") {
				t.Fatalf("accepted %q: bad component %q", b, seg)
			}
		}
		// In go-github's URLs: the branch escaped as one segment
		// (branches/{b}) or per component (git/refs/heads/{b}) stays in the
		// repository's path.
		if p, ok := resolvedPath("repos/o/r/branches/" + url.PathEscape(b)); !ok || p != "/api/v3/repos/o/r/branches/"+b {
			t.Fatalf("accepted %q: branches path resolves to %q", b, p)
		}
		parts := strings.Split(b, "/")
		for i, s := range parts {
			parts[i] = url.PathEscape(s)
		}
		if p, ok := resolvedPath("repos/o/r/git/refs/heads/" + strings.Join(parts, "/")); !ok || p != "/api/v3/repos/o/r/git/refs/heads/"+b {
			t.Fatalf("accepted %q: ref path resolves to %q", b, p)
		}
	})
}

var (
	ownerRE    = regexp.MustCompile(`^[A-Za-z0-9]+(-[A-Za-z0-9]+)*(_[A-Za-z0-9]+)?$`)
	repoNameRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
	hostRE     = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:[1-9][0-9]{0,4})?$`)
)

func FuzzValidateRepo(f *testing.F) {
	f.Add("github.com", "acme", "widgets")
	f.Add("ghe.example.com:8443", "octocat_acme", ".github")
	f.Add("github.com", "acme/../evil", "widgets")
	f.Add("github.com", "acme", "../../app/installations")
	f.Add("github.com/..", "a-b", "..")
	f.Add("", "-a", ".")
	f.Add("github.com:0", "a--b", "a%2Fb")
	f.Add("github.com.", "a_", "w\x00")
	f.Add("github.com\n", "acme\u202e", "w\nx")
	f.Fuzz(func(t *testing.T, host, owner, name string) {
		if err := queue.ValidateOwner(owner); err != nil {
			checkRejection(t, err, "repo.owner")
		} else if len(owner) > queue.MaxOwnerLen || !ownerRE.MatchString(owner) {
			t.Fatalf("accepted owner %q", owner)
		}
		if err := queue.ValidateRepoName(name); err != nil {
			checkRejection(t, err, "repo.name")
		} else if !repoNameRE.MatchString(name) || name == "." || name == ".." {
			t.Fatalf("accepted name %q", name)
		}
		if err := queue.ValidateHost(host); err != nil {
			checkRejection(t, err, "repo.host")
		} else if h, _, _ := strings.Cut(host, ":"); len(h) > queue.MaxHostLen || !hostRE.MatchString(host) {
			t.Fatalf("accepted host %q", host)
		}
		repo := queue.Repo{Host: host, Owner: owner, Name: name}
		if repo.Validate() != nil {
			return
		}
		// go-github puts owner and name into paths unescaped: an accepted
		// pair must resolve to exactly the repository's path.
		want := "/api/v3/repos/" + owner + "/" + name + "/pulls/1"
		if p, ok := resolvedPath("repos/" + owner + "/" + name + "/pulls/1"); !ok || p != want {
			t.Fatalf("accepted %s resolves to %q", repo, p)
		}
		if (queue.QueueKey{Repo: repo, Branch: "main"}).Validate() != nil {
			t.Fatalf("valid repository %s with branch main refused", repo)
		}
	})
}
