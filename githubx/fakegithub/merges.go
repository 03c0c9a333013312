package fakegithub

import (
	"net/http"
)

// mergeBranch implements POST /merges: merge head (a SHA or branch) into
// the base branch with a real 2-parent merge commit and advance base.
// created is false (and sha "") when head is already contained in base.
// Caller holds r.mu.
func (r *repo) mergeBranch(baseBranch, head, message, sender string) (sha string, created bool, err error) {
	base, ok, err := r.branchSHA(baseBranch)
	if err != nil {
		return "", false, err
	}
	if !ok {
		return "", false, errNotFound("Base does not exist")
	}
	headSHA, ok, err := r.git.resolveCommit(head)
	if err != nil {
		return "", false, err
	}
	if !ok {
		return "", false, errNotFound("Head does not exist")
	}
	if contained, err := r.git.isAncestor(headSHA, base); err != nil {
		return "", false, err
	} else if contained {
		return "", false, nil
	}
	tree, conflict, err := r.git.mergeTree(base, headSHA)
	if err != nil {
		return "", false, err
	}
	if conflict {
		return "", false, &apiError{status: http.StatusConflict, msg: "Merge conflict"}
	}
	if message == "" {
		message = "Merge " + head + " into " + baseBranch
	}
	sha, err = r.git.commitTree(tree, []string{base, headSHA}, message, r.s.sig(sender), r.s.githubSig())
	if err != nil {
		return "", false, err
	}
	if err := r.moveRef("refs/heads/"+baseBranch, base, sha, sender); err != nil {
		return "", false, err
	}
	return sha, true, nil
}

func handleMerge(c *reqCtx) {
	var body struct {
		Base          string `json:"base"`
		Head          string `json:"head"`
		CommitMessage string `json:"commit_message"`
	}
	if !c.decode(&body) {
		return
	}
	if body.Base == "" || body.Head == "" {
		c.error(http.StatusUnprocessableEntity, "Validation Failed: base and head are required")
		return
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	sha, created, err := r.mergeBranch(body.Base, body.Head, body.CommitMessage, c.actor)
	if err != nil {
		c.fail(err)
		return
	}
	if !created {
		c.noContent()
		return
	}
	rc, err := r.repositoryCommit(sha)
	if err != nil {
		c.fail(err)
		return
	}
	c.json(http.StatusCreated, rc)
}
