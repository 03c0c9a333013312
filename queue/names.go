package queue

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the names a queue is keyed by.
const (
	// MaxOwnerLen is GitHub's limit on user and organization logins.
	MaxOwnerLen = 39
	// MaxRepoNameLen is GitHub's limit on repository names.
	MaxRepoNameLen = 100
	// MaxBranchLen bounds branch names (bytes): a ref longer than a file
	// name may be cannot be stored by git on most file systems.
	MaxBranchLen = 255
	// MaxHostLen is DNS's limit on a host name (without the port).
	MaxHostLen = 253
)

// ErrInvalidName means a repository host, owner, name or branch breaks the
// naming rules (errors.Is matches every *NameError).
var ErrInvalidName = errors.New("invalid name")

// NameError is a name refused by the rules below. Its message names the
// field and the rule and quotes the value with non-printable characters
// escaped, on one line; it is safe to show to users.
type NameError struct {
	Field string // "repo.host", "repo.owner", "repo.name" or "targetBranch"
	Value string
	Rule  string // e.g. `must not contain ".."`
}

func (e *NameError) Error() string {
	return fmt.Sprintf("invalid field %s: %s, got %s", e.Field, e.Rule, quoteName(e.Value))
}

// Is makes every *NameError match ErrInvalidName.
func (e *NameError) Is(target error) bool { return target == ErrInvalidName }

// quoteName quotes a name for a message: at most 64 bytes, every
// non-printable rune (controls, bidi overrides, invalid UTF-8) escaped.
func quoteName(s string) string {
	const limit = 64
	if len(s) <= limit {
		return strconv.Quote(s)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

// Validate checks host, owner and name (in that order) with ValidateHost,
// ValidateOwner and ValidateRepoName.
func (r Repo) Validate() error {
	if err := ValidateHost(r.Host); err != nil {
		return err
	}
	if err := ValidateOwner(r.Owner); err != nil {
		return err
	}
	return ValidateRepoName(r.Name)
}

// Validate checks the repository (Repo.Validate), then the branch
// (ValidateBranch). A key that passes is safe to put into a GitHub URL
// path: no part is empty, "." or "..", and none holds a slash (but the
// branch), a control character or a character that needs escaping other
// than those a branch may hold.
func (k QueueKey) Validate() error {
	if err := k.Repo.Validate(); err != nil {
		return err
	}
	return ValidateBranch(k.Branch)
}

// ValidateOwner checks a repository owner (a user or organization login)
// against GitHub's rules: 1–39 ASCII letters, digits and hyphens, neither
// starting nor ending with a hyphen, without two hyphens in a row.
//
// One exception, because GitHub makes such logins itself: an Enterprise
// Managed User's login is the handle, an underscore and the enterprise's
// short code ("octocat_acme"), so one "_" followed by letters and digits
// may end the login. Logins GitHub no longer allows but kept from before
// (a trailing or doubled hyphen) are refused.
func ValidateOwner(s string) error {
	fail := func(rule string) error { return &NameError{Field: "repo.owner", Value: s, Rule: rule} }
	switch {
	case s == "":
		return fail("must not be empty")
	case len(s) > MaxOwnerLen:
		return fail(fmt.Sprintf("must be at most %d characters", MaxOwnerLen))
	}
	handle, shortCode, managed := strings.Cut(s, "_")
	for _, c := range []byte(handle) {
		if !isASCIIAlnum(c) && c != '-' {
			return fail("must hold only ASCII letters, digits and hyphens")
		}
	}
	switch {
	case handle == "":
		return fail("must start with a letter or digit")
	case handle[0] == '-' || handle[len(handle)-1] == '-':
		return fail("must not start or end with a hyphen")
	case strings.Contains(handle, "--"):
		return fail("must not hold two hyphens in a row")
	}
	if managed {
		if shortCode == "" || !allASCIIAlnum(shortCode) {
			return fail("must hold only ASCII letters, digits and hyphens (or end in _<letters and digits>, as a managed user's login)")
		}
	}
	return nil
}

// ValidateRepoName checks a repository name against GitHub's rules: 1–100
// ASCII letters, digits, ".", "-" and "_", and neither "." nor "..".
func ValidateRepoName(s string) error {
	fail := func(rule string) error { return &NameError{Field: "repo.name", Value: s, Rule: rule} }
	switch {
	case s == "":
		return fail("must not be empty")
	case len(s) > MaxRepoNameLen:
		return fail(fmt.Sprintf("must be at most %d characters", MaxRepoNameLen))
	case s == "." || s == "..":
		return fail(`must not be "." or ".."`)
	}
	for _, c := range []byte(s) {
		if !isASCIIAlnum(c) && c != '.' && c != '-' && c != '_' {
			return fail(`must hold only ASCII letters, digits, ".", "-" and "_"`)
		}
	}
	return nil
}

// branchForbidden are the printable ASCII characters git refuses in ref
// names (space included).
const branchForbidden = " ~^:?*[\\"

// ValidateBranch checks a branch name. It accepts only names that
// `git check-ref-format --branch` accepts (see git-check-ref-format(1)):
// no "..", no ASCII control character, space, "~", "^", ":", "?", "*",
// "[" or "\", not starting with "-" or "/", no "//", no path component
// starting with "." or ending with ".lock", not ending with "/" or ".",
// no "@{", and not "HEAD". It is stricter in four ways: the name "@" is
// refused (git reads it as HEAD), names are at most MaxBranchLen bytes,
// they must be valid UTF-8, and every non-ASCII rune must be printable
// (unicode.IsPrint), which refuses C1 controls, zero-width and
// bidirectional formatting characters such as U+202E, line separators and
// unassigned code points.
func ValidateBranch(s string) error {
	fail := func(rule string) error { return &NameError{Field: "targetBranch", Value: s, Rule: rule} }
	switch {
	case s == "":
		return fail("must not be empty")
	case len(s) > MaxBranchLen:
		return fail(fmt.Sprintf("must be at most %d bytes", MaxBranchLen))
	case !utf8.ValidString(s):
		return fail("must be valid UTF-8")
	}
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f:
			return fail("must not contain control characters")
		case r < utf8.RuneSelf && strings.ContainsRune(branchForbidden, r):
			return fail(`must not contain spaces or any of ~ ^ : ? * [ \`)
		case r >= utf8.RuneSelf && !unicode.IsPrint(r):
			return fail(fmt.Sprintf("must not contain invisible, control or bidirectional formatting characters (U+%04X)", r))
		}
	}
	switch {
	case s == "@" || s == "HEAD":
		return fail(`must not be "@" or "HEAD"`)
	case s[0] == '-':
		return fail("must not start with a hyphen")
	case s[0] == '/' || s[len(s)-1] == '/' || strings.Contains(s, "//"):
		return fail("must not start or end with a slash or hold two slashes in a row")
	case strings.Contains(s, ".."):
		return fail(`must not contain ".."`)
	case strings.Contains(s, "@{"):
		return fail(`must not contain "@{"`)
	case s[len(s)-1] == '.':
		return fail("must not end with a dot")
	}
	for _, part := range strings.Split(s, "/") {
		switch {
		case part[0] == '.':
			return fail("must not have a path component starting with a dot")
		case strings.HasSuffix(part, ".lock"):
			return fail(`must not have a path component ending with ".lock"`)
		}
	}
	return nil
}

// ValidateHost checks a GitHub host: a DNS host name of at most
// MaxHostLen characters, dot-separated labels of 1–63 ASCII letters,
// digits and hyphens that neither start nor end with a hyphen, optionally
// followed by ":port" (1–65535). IP literals in brackets are not accepted.
func ValidateHost(s string) error {
	fail := func(rule string) error { return &NameError{Field: "repo.host", Value: s, Rule: rule} }
	host := s
	if h, port, ok := strings.Cut(s, ":"); ok {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port[0] == '0' || strings.Trim(port, "0123456789") != "" {
			return fail("must be a host name, optionally with :port (1–65535)")
		}
		host = h
	}
	switch {
	case host == "":
		return fail("must not be empty")
	case len(host) > MaxHostLen:
		return fail(fmt.Sprintf("must be at most %d characters", MaxHostLen))
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 {
			return fail("must be dot-separated labels of 1–63 characters")
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return fail("must not have a label starting or ending with a hyphen")
		}
		for _, c := range []byte(label) {
			if !isASCIIAlnum(c) && c != '-' {
				return fail("must hold only ASCII letters, digits, hyphens and dots")
			}
		}
	}
	return nil
}

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// allASCIIAlnum reports whether s holds only ASCII letters and digits (a
// byte of a multi-byte character is neither).
func allASCIIAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isASCIIAlnum(s[i]) {
			return false
		}
	}
	return true
}
