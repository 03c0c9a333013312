package fakegithub

import (
	"fmt"
	"strings"
)

// mergeTree merges two commits with `git merge-tree --write-tree` and
// returns the merged tree; conflict is true (and tree unusable) when the
// merge does not apply cleanly.
func (g *gitDir) mergeTree(ours, theirs string) (tree string, conflict bool, err error) {
	res, err := g.exec("", nil, "merge-tree", "--write-tree", "--no-messages", "--allow-unrelated-histories", ours, theirs)
	if err != nil {
		return "", false, fmt.Errorf("failed to merge trees: %w", err)
	}
	switch res.code {
	case 0:
		first, _, _ := strings.Cut(res.stdout, "\n")
		return strings.TrimSpace(first), false, nil
	case 1:
		return "", true, nil
	default:
		return "", false, fmt.Errorf("failed to merge trees: exit %d (%s)", res.code, strings.TrimSpace(res.stderr))
	}
}

// cherryPickTree applies the change commit c made relative to base (its
// parent) on top of onto, returning the resulting tree. git 2.39 has no
// `merge-tree --merge-base`, so the three trees are wrapped in scratch
// commits whose only common ancestor is base's tree: merge-tree then
// performs exactly the three-way merge base→onto / base→c.
func (g *gitDir) cherryPickTree(baseTree, ontoTree, cTree string, sig signature) (tree string, conflict bool, err error) {
	root, err := g.commitTree(baseTree, nil, "scratch base", sig, sig)
	if err != nil {
		return "", false, err
	}
	ours, err := g.commitTree(ontoTree, []string{root}, "scratch ours", sig, sig)
	if err != nil {
		return "", false, err
	}
	theirs, err := g.commitTree(cTree, []string{root}, "scratch theirs", sig, sig)
	if err != nil {
		return "", false, err
	}
	return g.mergeTree(ours, theirs)
}

// isAncestor reports whether commit a is an ancestor of (or equal to) b.
func (g *gitDir) isAncestor(a, b string) (bool, error) {
	res, err := g.exec("", nil, "merge-base", "--is-ancestor", a, b)
	if err != nil {
		return false, err
	}
	switch res.code {
	case 0:
		return true, nil
	case 1:
		return false, nil
	default:
		return false, fmt.Errorf("failed to check ancestry: exit %d (%s)", res.code, strings.TrimSpace(res.stderr))
	}
}

// mergeBase returns the best common ancestor of a and b ("" if none).
func (g *gitDir) mergeBase(a, b string) (string, error) {
	res, err := g.exec("", nil, "merge-base", a, b)
	if err != nil {
		return "", err
	}
	switch res.code {
	case 0:
		return strings.TrimSpace(res.stdout), nil
	case 1:
		return "", nil
	default:
		return "", fmt.Errorf("failed to find merge base: exit %d (%s)", res.code, strings.TrimSpace(res.stderr))
	}
}

// revList lists commits reachable from head and not from base, oldest
// first (topological order). firstParent limits the walk to first parents.
func (g *gitDir) revList(base, head string, firstParent bool) ([]string, error) {
	args := []string{"rev-list", "--reverse", "--topo-order"}
	if firstParent {
		args = append(args, "--first-parent")
	}
	args = append(args, head)
	if base != "" {
		args = append(args, "^"+base)
	}
	out, err := g.run("", nil, args...)
	if err != nil {
		return nil, fmt.Errorf("failed to list commits: %w", err)
	}
	return strings.Fields(out), nil
}

// updateRef moves ref from old to sha atomically (old "" = no check,
// zeroSHA = must not exist); a failed compare is an error.
func (g *gitDir) updateRef(ref, sha, old string) error {
	args := []string{"update-ref", ref, sha}
	if old != "" {
		args = append(args, old)
	}
	if _, err := g.run("", nil, args...); err != nil {
		return fmt.Errorf("failed to update %s: %w", ref, err)
	}
	return nil
}

// deleteRef deletes ref if it still points at old ("" = no check).
func (g *gitDir) deleteRef(ref, old string) error {
	args := []string{"update-ref", "-d", ref}
	if old != "" {
		args = append(args, old)
	}
	if _, err := g.run("", nil, args...); err != nil {
		return fmt.Errorf("failed to delete %s: %w", ref, err)
	}
	return nil
}
