package githubx

import "sync"

// treeCacheSize bounds the commits whose tree the client remembers: a few
// thousand test and landed commits, a few hundred KiB.
const treeCacheSize = 4096

// treeCache remembers the tree of commits the client built or read. A
// commit's tree never changes, so an entry is never stale; the oldest
// entries are dropped past the bound.
type treeCache struct {
	mu    sync.Mutex
	max   int
	trees map[string]string
	order []string
}

func newTreeCache(max int) *treeCache { return &treeCache{max: max, trees: map[string]string{}} }

func (c *treeCache) key(repo, sha string) string { return repo + "@" + sha }

func (c *treeCache) get(repo, sha string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.trees[c.key(repo, sha)]
	return t, ok
}

func (c *treeCache) put(repo, sha, tree string) {
	if sha == "" || tree == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.key(repo, sha)
	if _, ok := c.trees[k]; ok {
		return
	}
	c.trees[k] = tree
	c.order = append(c.order, k)
	if len(c.order) > c.max {
		delete(c.trees, c.order[0])
		c.order = c.order[1:]
	}
}
