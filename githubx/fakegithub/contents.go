package fakegithub

import (
	"crypto/sha1" //nolint:gosec // git names blobs by SHA-1
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"path"
	"strconv"

	"github.com/google/go-github/v66/github"
)

// handlePutContents is PUT /repos/{owner}/{repo}/contents/{path}: one
// commit creating or replacing a file on an existing branch (default
// main), by whoever the token acts for, with a push webhook. As on GitHub,
// replacing a file needs the blob sha it replaces (422 without it, 409 if
// it is not the current one).
func handlePutContents(c *reqCtx) {
	var body struct {
		Message *string `json:"message"`
		Content *string `json:"content"`
		SHA     string  `json:"sha"`
		Branch  string  `json:"branch"`
	}
	if !c.decode(&body) {
		return
	}
	p := c.params["path"]
	switch {
	case body.Message == nil || *body.Message == "":
		c.error(http.StatusUnprocessableEntity, "Invalid request.\n\n\"message\" wasn't supplied.")
		return
	case body.Content == nil:
		c.error(http.StatusUnprocessableEntity, "Invalid request.\n\n\"content\" wasn't supplied.")
		return
	case !validPath(p):
		c.error(http.StatusUnprocessableEntity, "path is invalid")
		return
	}
	content, err := base64.StdEncoding.DecodeString(*body.Content)
	if err != nil {
		c.error(http.StatusUnprocessableEntity, "content is not valid Base64")
		return
	}
	branch := body.Branch
	if branch == "" {
		branch = "main"
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	head, ok, err := r.branchSHA(branch)
	if err != nil {
		c.fail(err)
		return
	}
	if !ok {
		c.error(http.StatusNotFound, "Branch "+branch+" not found")
		return
	}
	old, exists, err := r.git.fileAt(head, p)
	if err != nil {
		c.fail(err)
		return
	}
	status := http.StatusCreated
	if exists {
		switch body.SHA {
		case "":
			c.error(http.StatusUnprocessableEntity, "Invalid request.\n\n\"sha\" wasn't supplied.")
			return
		case blobSHA(old):
			status = http.StatusOK
		default:
			c.error(http.StatusConflict, fmt.Sprintf("%s does not match %s", p, body.SHA))
			return
		}
	}
	sha, err := r.commitFiles(branch, "", map[string]string{p: string(content)}, *body.Message, c.actor)
	if err != nil {
		c.fail(err)
		return
	}
	ci, err := r.git.commit(sha)
	if err != nil {
		c.fail(err)
		return
	}
	blob := blobSHA(string(content))
	c.json(status, &github.RepositoryContentResponse{
		Content: &github.RepositoryContent{
			Type:    github.String("file"),
			Name:    github.String(path.Base(p)),
			Path:    github.String(p),
			SHA:     github.String(blob),
			Size:    github.Int(len(content)),
			URL:     github.String(r.apiURL() + "/contents/" + p + "?ref=" + branch),
			HTMLURL: github.String(r.htmlURL() + "/blob/" + branch + "/" + p),
			GitURL:  github.String(r.apiURL() + "/git/blobs/" + blob),
		},
		Commit: *r.gitCommit(ci),
	})
}

// blobSHA is the git object name of a blob holding content.
func blobSHA(content string) string {
	h := sha1.New() //nolint:gosec // git names blobs by SHA-1
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00" + content))
	return hex.EncodeToString(h.Sum(nil))
}
