package fakegithub

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v66/github"
)

// apiRef renders a reference.
func (r *repo) apiRef(ref, sha string) *github.Reference {
	return &github.Reference{
		Ref:    github.String(ref),
		NodeID: github.String("REF_" + ref),
		URL:    github.String(r.apiURL() + "/git/" + ref),
		Object: &github.GitObject{
			Type: github.String("commit"),
			SHA:  github.String(sha),
			URL:  github.String(r.apiURL() + "/git/commits/" + sha),
		},
	}
}

// fullRef turns a path parameter ("heads/x" or "refs/heads/x") into a
// full ref name, or "" if it is not a valid one.
func fullRef(p string) string {
	p = strings.TrimPrefix(p, "refs/")
	if !validRefName(p) || !strings.Contains(p, "/") {
		return ""
	}
	return "refs/" + p
}

func handleGetRef(c *reqCtx) {
	ref := fullRef(c.params["ref"])
	if ref == "" {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	sha, ok, err := c.repo.git.refSHA(ref)
	if err != nil {
		c.fail(err)
		return
	}
	if !ok {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	c.json(http.StatusOK, c.repo.apiRef(ref, sha))
}

// sortedRefs lists refs under prefix as API references, sorted by name.
func (r *repo) sortedRefs(prefix string) ([]*github.Reference, error) {
	refs, err := r.git.refs("refs/")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(refs))
	for name := range refs {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	out := make([]*github.Reference, 0, len(names))
	for _, n := range names {
		out = append(out, r.apiRef(n, refs[n]))
	}
	return out, nil
}

// handleGetRefs serves the legacy GET /git/refs/{ref}: the exact ref as an
// object, or every ref with that prefix as an array.
func handleGetRefs(c *reqCtx) {
	p := c.params["ref"]
	if p == "" {
		refs, err := c.repo.sortedRefs("refs/")
		if err != nil {
			c.fail(err)
			return
		}
		c.json(http.StatusOK, page(c, refs))
		return
	}
	ref := "refs/" + strings.TrimPrefix(p, "refs/")
	if sha, ok, err := c.repo.git.refSHA(ref); err != nil {
		c.fail(err)
		return
	} else if ok && fullRef(p) != "" {
		c.json(http.StatusOK, c.repo.apiRef(ref, sha))
		return
	}
	refs, err := c.repo.sortedRefs(ref)
	if err != nil {
		c.fail(err)
		return
	}
	if len(refs) == 0 {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	c.json(http.StatusOK, page(c, refs))
}

func handleMatchingRefs(c *reqCtx) {
	refs, err := c.repo.sortedRefs("refs/" + strings.TrimPrefix(c.params["ref"], "refs/"))
	if err != nil {
		c.fail(err)
		return
	}
	c.json(http.StatusOK, page(c, refs))
}

func handleCreateRef(c *reqCtx) {
	var body struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if !c.decode(&body) {
		return
	}
	ref := body.Ref
	if !strings.HasPrefix(ref, "refs/") || strings.Count(ref, "/") < 2 || fullRef(ref) == "" {
		c.error(http.StatusUnprocessableEntity, "Reference name is invalid: ref must start with 'refs' and have at least two slashes")
		return
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	sha, ok, err := r.git.resolveCommit(body.SHA)
	if err != nil {
		c.fail(err)
		return
	}
	if !ok || !isHex(body.SHA) {
		c.error(http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if _, exists, err := r.git.refSHA(ref); err != nil {
		c.fail(err)
		return
	} else if exists {
		c.error(http.StatusUnprocessableEntity, "Reference already exists")
		return
	}
	if err := r.moveRef(ref, "", sha, c.actor); err != nil {
		c.fail(err)
		return
	}
	c.json(http.StatusCreated, r.apiRef(ref, sha))
}

func handleUpdateRef(c *reqCtx) {
	var body struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if !c.decode(&body) {
		return
	}
	ref := fullRef(c.params["ref"])
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	old, exists, err := r.git.refSHA(ref)
	if err != nil {
		c.fail(err)
		return
	}
	if ref == "" || !exists {
		c.error(http.StatusUnprocessableEntity, "Reference does not exist")
		return
	}
	sha, ok, err := r.git.resolveCommit(body.SHA)
	if err != nil {
		c.fail(err)
		return
	}
	if !ok || !isHex(body.SHA) {
		c.error(http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if !body.Force {
		ff, err := r.git.isAncestor(old, sha)
		if err != nil {
			c.fail(err)
			return
		}
		if !ff {
			c.error(http.StatusUnprocessableEntity, "Update is not a fast forward")
			return
		}
	}
	if err := r.moveRef(ref, old, sha, c.actor); err != nil {
		c.fail(err)
		return
	}
	c.json(http.StatusOK, r.apiRef(ref, sha))
}

func handleDeleteRef(c *reqCtx) {
	ref := fullRef(c.params["ref"])
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	old, exists, err := r.git.refSHA(ref)
	if err != nil {
		c.fail(err)
		return
	}
	if ref == "" || !exists {
		c.error(http.StatusUnprocessableEntity, "Reference does not exist")
		return
	}
	if err := r.moveRef(ref, old, "", c.actor); err != nil {
		c.fail(fmt.Errorf("failed to delete ref: %w", err))
		return
	}
	c.noContent()
}
