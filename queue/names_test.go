package queue_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mergequeue/mq/queue"
)

// nameCase is a name and whether it is valid; rule is a fragment of the
// error expected when it is not.
type nameCase struct {
	name, in string
	rule     string // "" = valid
}

func checkNames(t *testing.T, field string, validate func(string) error, cases []nameCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := validate(tt.in)
			if tt.rule == "" {
				if err != nil {
					t.Fatalf("%q: unexpected error %v", tt.in, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("%q: accepted, want an error about %q", tt.in, tt.rule)
			}
			var ne *queue.NameError
			if !errors.As(err, &ne) || !errors.Is(err, queue.ErrInvalidName) {
				t.Fatalf("%q: error %v (%T) is not a *NameError matching ErrInvalidName", tt.in, err, err)
			}
			msg := err.Error()
			if ne.Field != field || !strings.HasPrefix(msg, "invalid field "+field+": ") || !strings.Contains(msg, tt.rule) {
				t.Errorf("%q: error %q, want field %s and rule %q", tt.in, msg, field, tt.rule)
			}
			if strings.ContainsFunc(msg, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\u202e' }) {
				t.Errorf("%q: message %q holds control characters", tt.in, msg)
			}
		})
	}
}

func TestValidateOwner(t *testing.T) {
	t.Parallel()
	checkNames(t, "repo.owner", queue.ValidateOwner, []nameCase{
		{"simple", "acme", ""},
		{"mixed case and digits", "Acme42", ""},
		{"single hyphens", "a-b-c", ""},
		{"one character", "a", ""},
		{"39 characters", strings.Repeat("a", 39), ""},
		{"managed user", "octocat_acme", ""},
		{"managed user with hyphen", "mona-lisa_ent1", ""},
		{"empty", "", "must not be empty"},
		{"40 characters", strings.Repeat("a", 40), "at most 39"},
		{"traversal", "acme/../evil", "only ASCII letters, digits and hyphens"},
		{"dot dot", "..", "only ASCII letters"},
		{"dot", ".", "only ASCII letters"},
		{"slash", "a/b", "only ASCII letters"},
		{"percent-encoded slash", "a%2Fb", "only ASCII letters"},
		{"NUL", "a\x00b", "only ASCII letters"},
		{"newline", "a\nb", "only ASCII letters"},
		{"space", "a b", "only ASCII letters"},
		{"dot inside", "a.b", "only ASCII letters"},
		{"non-ASCII", "acmé", "only ASCII letters"},
		{"RTL override", "acme\u202e", "only ASCII letters"},
		{"leading hyphen", "-acme", "must not start or end with a hyphen"},
		{"trailing hyphen", "acme-", "must not start or end with a hyphen"},
		{"double hyphen", "ac--me", "two hyphens in a row"},
		{"bot login", "dependabot[bot]", "only ASCII letters"},
		{"underscore first", "_acme", "must start with a letter or digit"},
		{"empty short code", "octocat_", "managed user"},
		{"two underscores", "a_b_c", "managed user"},
		{"hyphen in short code", "a_b-c", "managed user"},
		{"hyphen before short code", "a-_b", "must not start or end with a hyphen"},
	})
}

func TestValidateRepoName(t *testing.T) {
	t.Parallel()
	checkNames(t, "repo.name", queue.ValidateRepoName, []nameCase{
		{"simple", "widgets", ""},
		{"every allowed character", "My_Repo-2.0", ""},
		{"dot prefix", ".github", ""},
		{"three dots", "...", ""},
		{"100 characters", strings.Repeat("r", 100), ""},
		{"empty", "", "must not be empty"},
		{"dot", ".", `must not be "." or ".."`},
		{"dot dot", "..", `must not be "." or ".."`},
		{"101 characters", strings.Repeat("r", 101), "at most 100"},
		{"traversal", "../../app/installations", "only ASCII letters"},
		{"slash", "a/b", "only ASCII letters"},
		{"percent-encoded slash", "a%2Fb", "only ASCII letters"},
		{"NUL", "a\x00", "only ASCII letters"},
		{"newline", "a\n", "only ASCII letters"},
		{"tab", "a\tb", "only ASCII letters"},
		{"question mark", "a?b", "only ASCII letters"},
		{"hash", "a#b", "only ASCII letters"},
		{"RTL override", "\u202ewidgets", "only ASCII letters"},
		{"invalid UTF-8", "w\xffx", "only ASCII letters"},
	})
}

func TestValidateHost(t *testing.T) {
	t.Parallel()
	checkNames(t, "repo.host", queue.ValidateHost, []nameCase{
		{"github.com", "github.com", ""},
		{"enterprise", "ghe.example.co.uk", ""},
		{"with port", "ghe.local:8443", ""},
		{"single label", "localhost", ""},
		{"IPv4", "127.0.0.1:9000", ""},
		{"hyphenated label", "my-ghe.example.com", ""},
		{"empty", "", "must not be empty"},
		{"empty with port", ":443", "must not be empty"},
		{"trailing dot", "github.com.", "labels of 1–63"},
		{"leading dot", ".github.com", "labels of 1–63"},
		{"double dot", "github..com", "labels of 1–63"},
		{"long label", strings.Repeat("a", 64) + ".com", "labels of 1–63"},
		{"too long", strings.Repeat("a.", 127), "at most 253"},
		{"label hyphen", "-github.com", "starting or ending with a hyphen"},
		{"slash", "github.com/../x", "only ASCII letters, digits, hyphens and dots"},
		{"underscore", "git_hub.com", "only ASCII letters"},
		{"NUL", "github.com\x00", "only ASCII letters"},
		{"newline", "github.com\n", "only ASCII letters"},
		{"user info", "a@github.com", "only ASCII letters"},
		{"port zero", "github.com:0", ":port"},
		{"port too big", "github.com:65536", ":port"},
		{"port signed", "github.com:+1", ":port"},
		{"port leading zero", "github.com:0443", ":port"},
		{"empty port", "github.com:", ":port"},
		{"two colons", "github.com:1:2", ":port"},
		{"IPv6", "[::1]:443", ":port"},
	})
}

// branchCases are checked by TestValidateBranch and, those without a NUL,
// against `git check-ref-format --branch`.
var branchCases = []nameCase{
	{"simple", "main", ""},
	{"nested", "release/v1.2", ""},
	{"test branch", "mq-merge/pr-12/3f2c", ""},
	{"at inside", "a@b", ""},
	{"braces", "a{b}", ""},
	{"dots inside", "v1.2.3", ""},
	{"lock inside", "x.locked/y", ""},
	{"unicode", "fix/ünïcödé-名前", ""},
	{"emoji", "feat/🚀", ""},
	{"refs prefix", "refs/heads/x", ""},
	{"255 bytes", strings.Repeat("b", 255), ""},
	{"empty", "", "must not be empty"},
	{"256 bytes", strings.Repeat("b", 256), "at most 255 bytes"},
	{"dot dot", "a..b", `".."`},
	{"traversal", "../../app/installations", `".."`},
	{"dot dot component", "a/../b", `".."`},
	{"NUL", "a\x00b", "control characters"},
	{"newline", "main\n", "control characters"},
	{"carriage return", "a\rb", "control characters"},
	{"tab", "a\tb", "control characters"},
	{"escape", "a\x1b[31m", "control characters"},
	{"DEL", "a\x7fb", "control characters"},
	{"space", "a b", "spaces"},
	{"tilde", "a~1", "spaces or any of"},
	{"caret", "a^", "spaces or any of"},
	{"colon", "a:b", "spaces or any of"},
	{"question mark", "a?", "spaces or any of"},
	{"star", "a*", "spaces or any of"},
	{"bracket", "a[b", "spaces or any of"},
	{"backslash", `a\b`, "spaces or any of"},
	{"leading hyphen", "-x", "start with a hyphen"},
	{"lone hyphen", "-", "start with a hyphen"},
	{"leading slash", "/main", "slash"},
	{"trailing slash", "main/", "slash"},
	{"double slash", "a//b", "slash"},
	{"dot component", "a/./b", "component starting with a dot"},
	{"hidden", ".hidden", "component starting with a dot"},
	{"hidden component", "a/.b", "component starting with a dot"},
	{"dot", ".", "end with a dot"},
	{"trailing dot", "main.", "end with a dot"},
	{"lock", "x.lock", `".lock"`},
	{"lock component", "x.lock/y", `".lock"`},
	{"at brace", "@{", `"@{"`},
	{"reflog", "main@{1}", `"@{"`},
	{"previous branch", "@{-1}", `"@{"`},
	{"HEAD", "HEAD", `"HEAD"`},
	{"at", "@", `"@"`},
	{"percent-encoded slash", "a%2F..", `".."`},
	{"RTL override", "main\u202e", "U+202E"},
	{"LTR mark", "a\u200eb", "U+200E"},
	{"zero width space", "a\u200bb", "U+200B"},
	{"line separator", "a\u2028b", "U+2028"},
	{"C1 control", "a\u0085b", "U+0085"},
	{"BOM", "\ufeffmain", "U+FEFF"},
	{"no-break space", "a\u00a0b", "U+00A0"},
	{"invalid UTF-8", "a\xffb", "valid UTF-8"},
	{"surrogate bytes", "a\xed\xa0\x80", "valid UTF-8"},
}

func TestValidateBranch(t *testing.T) {
	t.Parallel()
	checkNames(t, "targetBranch", queue.ValidateBranch, branchCases)
}

// stricterThanGit are the names ValidateBranch refuses on purpose although
// git accepts them as branches (see its doc comment).
var stricterThanGit = map[string]bool{"@": true, strings.Repeat("b", 256): true}

// TestValidateBranchAgreesWithGit runs every case through `git
// check-ref-format --branch`: ValidateBranch never accepts a name git
// refuses, and refuses a name git accepts only for its documented extra
// rules.
func TestValidateBranchAgreesWithGit(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir() // not a repository: "@{-1}" stays literal
	for _, tt := range branchCases {
		if strings.ContainsRune(tt.in, 0) || tt.in == "" {
			continue // cannot be an argument; refused anyway
		}
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(git, "check-ref-format", "--branch", tt.in)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+dir, "GIT_DIR="+dir+"/none")
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatalf("git: %v: %s", err, out)
			}
			gitOK := err == nil
			ours := queue.ValidateBranch(tt.in)
			switch {
			case !gitOK && ours == nil:
				t.Errorf("%q: accepted, but git refuses it: %s", tt.in, out)
			case gitOK && ours != nil && !stricterThanGit[tt.in] && !unprintable(tt.in):
				t.Errorf("%q: refused (%v), but git accepts it", tt.in, ours)
			case gitOK != (tt.rule == "") && !stricterThanGit[tt.in] && !unprintable(tt.in):
				t.Errorf("%q: the table says valid=%v, git says %v", tt.in, tt.rule == "", gitOK)
			}
		})
	}
}

// unprintable reports names holding what git allows and ValidateBranch
// does not: invalid UTF-8 and non-printable non-ASCII runes.
func unprintable(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	return strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf && !unicode.IsPrint(r) })
}

func TestQueueKeyValidate(t *testing.T) {
	t.Parallel()
	good := queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}, Branch: "main"}
	if err := good.Validate(); err != nil {
		t.Fatalf("valid key: %v", err)
	}
	for _, tt := range []struct {
		name  string
		edit  func(*queue.QueueKey)
		field string
	}{
		{"host", func(k *queue.QueueKey) { k.Repo.Host = "" }, "repo.host"},
		{"owner", func(k *queue.QueueKey) { k.Repo.Owner = "acme/../evil" }, "repo.owner"},
		{"name", func(k *queue.QueueKey) { k.Repo.Name = ".." }, "repo.name"},
		{"branch", func(k *queue.QueueKey) { k.Branch = "a..b" }, "targetBranch"},
		{"first wins", func(k *queue.QueueKey) { k.Repo.Owner, k.Branch = "-", "-" }, "repo.owner"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k := good
			tt.edit(&k)
			var ne *queue.NameError
			if err := k.Validate(); !errors.As(err, &ne) || ne.Field != tt.field {
				t.Errorf("Validate() = %v, want a *NameError for %s", err, tt.field)
			}
		})
	}
}

func TestNameErrorQuotesLongAndHostileValues(t *testing.T) {
	t.Parallel()
	err := queue.ValidateBranch(strings.Repeat("é", 200))
	if err == nil || !strings.HasSuffix(err.Error(), "…") || len(err.Error()) > 200 {
		t.Errorf("long name: %v", err)
	}
	err = queue.ValidateBranch("main\u202e\n")
	if err == nil || strings.ContainsAny(err.Error(), "\n\u202e") {
		t.Errorf("hostile name quoted raw: %q", err)
	}
}
