package sim

import "fmt"

// commitKind tells how a commit came to be.
type commitKind int

const (
	kindRoot   commitKind = iota // the target branch's first commit
	kindTarget                   // a merge into, or a push to, the target branch
	kindHead                     // a PR head
	kindBuilt                    // a merge commit on a branch built by BuildBranch
)

// commit is one commit of the content model. Its content is a set of
// patches: its parent's plus at most one patch of its own. A PR's patch is
// its number; an external push's patch is negative. Patch 0 means none (a
// merge of a patch already contained).
type commit struct {
	sha    string
	parent *commit
	depth  int
	jump   []*commit // jump[k] is the 2^k-th ancestor (binary lifting)
	patch  int
	head   string // the PR head whose merge added patch ("" if none)
	kind   commitKind
	sum1   uint64 // order-independent hashes of the patch set
	sum2   uint64
	size   int
	bad    bool // contains a Bad PR's patch
}

// tree is the commit's tree SHA: equal exactly when the patch sets are.
func (c *commit) tree() string {
	return fmt.Sprintf("%016x%016x%08x", c.sum1, c.sum2, uint32(c.size))
}

func (c *commit) sameTree(o *commit) bool {
	return c.sum1 == o.sum1 && c.sum2 == o.sum2 && c.size == o.size
}

// mix is splitmix64's finaliser: a bijective 64-bit hash.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// newSHA returns a fresh, deterministic 40-hex-digit commit SHA.
func (w *World) newSHA() string {
	w.shaCounter++
	n := w.shaCounter
	return fmt.Sprintf("%016x%016x%08x", splitmix(n), splitmix(n^0x5bd1e995), uint32(n))
}

// addCommit creates a commit on parent adding patch (merged from head) and
// registers it. A patch parent already contains is not added again.
func (w *World) addCommit(parent *commit, patch int, head string, kind commitKind) *commit {
	c := &commit{sha: w.newSHA(), parent: parent, kind: kind}
	if parent != nil {
		c.depth = parent.depth + 1
		c.sum1, c.sum2, c.size, c.bad = parent.sum1, parent.sum2, parent.size, parent.bad
		c.jump = append(c.jump, parent)
		for k := 0; k < len(c.jump[k].jump); k++ {
			c.jump = append(c.jump, c.jump[k].jump[k])
		}
	}
	if patch != 0 && (parent == nil || w.addedBy(parent, patch) == nil) {
		c.patch, c.head = patch, head
		c.sum1 += splitmix(uint64(int64(patch)))
		c.sum2 += splitmix(uint64(int64(patch)) ^ 0xdeadbeefcafe)
		c.size++
		if pr := w.prs[patch]; pr != nil && pr.spec.Bad {
			c.bad = true
		}
		w.patchAdds[patch] = append(w.patchAdds[patch], c)
	}
	w.commits[c.sha] = c
	return c
}

// ancestorAt returns c's ancestor at depth (c itself at its own depth).
func ancestorAt(c *commit, depth int) *commit {
	for diff, k := c.depth-depth, 0; diff > 0; diff, k = diff>>1, k+1 {
		if diff&1 == 1 {
			c = c.jump[k]
		}
	}
	return c
}

// isAncestor reports whether a is c or one of its ancestors.
func isAncestor(a, c *commit) bool {
	return a.depth <= c.depth && ancestorAt(c, a.depth) == a
}

// addedBy returns the commit of c's history that added patch (nil if c does
// not contain it).
func (w *World) addedBy(c *commit, patch int) *commit {
	for _, a := range w.patchAdds[patch] {
		if isAncestor(a, c) {
			return a
		}
	}
	return nil
}

// conflictsWith returns the lowest-numbered PR whose patch c contains and
// which conflicts with PR n's patch (0 if none).
func (w *World) conflictsWith(c *commit, n int) int {
	for _, other := range w.conflicts[n] {
		if w.addedBy(c, other) != nil {
			return other
		}
	}
	return 0
}

// builtPRs lists the PR patches the built part of c's history added (the
// test branch's own merges, back to the first commit it was built from), in
// merge order.
func builtPRs(c *commit) []int {
	var out []int
	for ; c != nil && c.kind == kindBuilt; c = c.parent {
		if c.patch > 0 {
			out = append(out, c.patch)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
