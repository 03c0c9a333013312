package fakegithub

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// emptyTreeSHA is git's well-known empty tree.
const emptyTreeSHA = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// signature is a commit author or committer.
type signature struct {
	Name  string
	Email string
	When  time.Time
}

// commitInfo is a parsed commit object.
type commitInfo struct {
	SHA       string
	Tree      string
	Parents   []string
	Author    signature
	Committer signature
	Message   string
}

// resolveCommit resolves a SHA (full or abbreviated), a branch name, a tag
// name or a full ref to a commit SHA. ok is false if nothing matches.
func (g *gitDir) resolveCommit(rev string) (sha string, ok bool, err error) {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, " \t\n\x00") {
		return "", false, nil
	}
	var candidates []string
	switch {
	case strings.HasPrefix(rev, "refs/"):
		candidates = []string{rev}
	case isHex(rev) && len(rev) >= 4:
		candidates = []string{rev, "refs/heads/" + rev}
	default:
		candidates = []string{"refs/heads/" + rev, "refs/tags/" + rev}
	}
	for _, c := range candidates {
		res, err := g.exec("", nil, "rev-parse", "--verify", "--quiet", c+"^{commit}")
		if err != nil {
			return "", false, err
		}
		if res.code == 0 {
			return strings.TrimSpace(res.stdout), true, nil
		}
	}
	return "", false, nil
}

// refSHA returns the object a full ref ("refs/heads/x") points at.
func (g *gitDir) refSHA(ref string) (sha string, ok bool, err error) {
	if strings.HasPrefix(ref, "-") {
		return "", false, nil
	}
	res, err := g.exec("", nil, "rev-parse", "--verify", "--quiet", ref)
	if err != nil {
		return "", false, err
	}
	if res.code != 0 {
		return "", false, nil
	}
	return strings.TrimSpace(res.stdout), true, nil
}

// refs lists full ref names and their SHAs under prefix (e.g. "refs/heads/").
func (g *gitDir) refs(prefix string) (map[string]string, error) {
	out, err := g.run("", nil, "for-each-ref", "--format=%(refname) %(objectname)", prefix)
	if err != nil {
		return nil, err
	}
	refs := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		name, sha, ok := strings.Cut(line, " ")
		if ok {
			refs[name] = sha
		}
	}
	return refs, nil
}

// commit reads and parses a commit object.
func (g *gitDir) commit(sha string) (*commitInfo, error) {
	out, err := g.execRaw("cat-file", "commit", sha)
	if err != nil {
		return nil, err
	}
	info := &commitInfo{SHA: sha}
	header, msg, _ := strings.Cut(out, "\n\n")
	info.Message = msg
	for _, line := range strings.Split(header, "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			info.Tree = val
		case "parent":
			info.Parents = append(info.Parents, val)
		case "author":
			info.Author = parseSignature(val)
		case "committer":
			info.Committer = parseSignature(val)
		}
	}
	return info, nil
}

// execRaw runs git and returns untrimmed stdout, failing on non-zero exit.
func (g *gitDir) execRaw(args ...string) (string, error) {
	res, err := g.exec("", nil, args...)
	if err != nil {
		return "", err
	}
	if res.code != 0 {
		return "", fmt.Errorf("failed to run git %s: exit %d (%s)", strings.Join(args, " "), res.code, strings.TrimSpace(res.stderr))
	}
	return res.stdout, nil
}

// parseSignature parses "Name <email> 1700000000 +0000".
func parseSignature(s string) signature {
	var sig signature
	lt, gt := strings.Index(s, "<"), strings.LastIndex(s, ">")
	if lt < 0 || gt < lt {
		return signature{Name: s}
	}
	sig.Name = strings.TrimSpace(s[:lt])
	sig.Email = s[lt+1 : gt]
	fields := strings.Fields(s[gt+1:])
	if len(fields) > 0 {
		if sec, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			sig.When = time.Unix(sec, 0).UTC()
		}
	}
	return sig
}

// sigEnv renders author and committer as git's environment variables.
func sigEnv(author, committer signature) []string {
	date := func(t time.Time) string { return fmt.Sprintf("%d +0000", t.Unix()) }
	return []string{
		"GIT_AUTHOR_NAME=" + author.Name,
		"GIT_AUTHOR_EMAIL=" + author.Email,
		"GIT_AUTHOR_DATE=" + date(author.When),
		"GIT_COMMITTER_NAME=" + committer.Name,
		"GIT_COMMITTER_EMAIL=" + committer.Email,
		"GIT_COMMITTER_DATE=" + date(committer.When),
	}
}

// commitTree writes a commit object and returns its SHA.
func (g *gitDir) commitTree(tree string, parents []string, message string, author, committer signature) (string, error) {
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	args = append(args, "-F", "-")
	if message == "" {
		message = "\n"
	}
	sha, err := g.run(message, sigEnv(author, committer), args...)
	if err != nil {
		return "", fmt.Errorf("failed to write commit: %w", err)
	}
	return sha, nil
}
