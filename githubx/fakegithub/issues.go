package fakegithub

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
)

// reactionContents are the reactions GitHub accepts.
var reactionContents = map[string]bool{
	"+1": true, "-1": true, "laugh": true, "confused": true,
	"heart": true, "hooray": true, "rocket": true, "eyes": true,
}

// addComment posts a comment on a PR, sending issue_comment "created".
// Caller holds r.mu.
func (r *repo) addComment(pr *pullRequest, user, body string) *github.IssueComment {
	id := r.s.newID()
	now := time.Now().UTC()
	cm := &github.IssueComment{
		ID:                github.Int64(id),
		NodeID:            github.String(fmt.Sprintf("IC_%d", id)),
		Body:              github.String(body),
		User:              r.s.user(user),
		CreatedAt:         &github.Timestamp{Time: now},
		UpdatedAt:         &github.Timestamp{Time: now},
		AuthorAssociation: github.String(r.association(user)),
		URL:               github.String(fmt.Sprintf("%s/issues/comments/%d", r.apiURL(), id)),
		HTMLURL:           github.String(fmt.Sprintf("%s/pull/%d#issuecomment-%d", r.htmlURL(), pr.number, id)),
		IssueURL:          github.String(fmt.Sprintf("%s/issues/%d", r.apiURL(), pr.number)),
	}
	r.comments[id] = &comment{c: cm, number: pr.number}
	r.s.mu.Lock()
	r.s.commentRepo[id] = r
	r.s.mu.Unlock()
	r.emitIssueComment(pr, copyComment(cm), "created", user, nil)
	return cm
}

// association is the author_association GitHub reports for a login.
func (r *repo) association(login string) string {
	switch r.permission(login) {
	case "admin":
		if strings.EqualFold(login, r.owner) {
			return "OWNER"
		}
		return "MEMBER"
	case "maintain", "write":
		return "COLLABORATOR"
	}
	return "CONTRIBUTOR"
}

func copyComment(cm *github.IssueComment) *github.IssueComment {
	cp := *cm
	return &cp
}

// commentOrFail looks up the {id} comment in this repo. Caller holds r.mu.
func (c *reqCtx) commentOrFail() (*comment, bool) {
	id, ok := c.intParam("id")
	if !ok {
		return nil, false
	}
	cm, ok := c.repo.comments[id]
	if !ok {
		c.error(http.StatusNotFound, "Not Found")
		return nil, false
	}
	return cm, true
}

func handleGetIssue(c *reqCtx) {
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, ok := c.prOrFail()
	if !ok {
		return
	}
	c.json(http.StatusOK, r.issueJSON(pr))
}

func handleListComments(c *reqCtx) {
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, ok := c.prOrFail()
	if !ok {
		return
	}
	comments := r.prComments(pr.number)
	if v := c.r.URL.Query().Get("since"); v != "" {
		since, err := time.Parse(time.RFC3339, v)
		if err != nil {
			c.error(http.StatusUnprocessableEntity, "Validation Failed: since must be an ISO 8601 timestamp")
			return
		}
		kept := comments[:0]
		for _, cm := range comments {
			if !cm.GetUpdatedAt().Time.Before(since) {
				kept = append(kept, cm)
			}
		}
		comments = kept
	}
	c.json(http.StatusOK, page(c, comments))
}

// prComments lists a PR's comments, oldest first. Caller holds r.mu.
func (r *repo) prComments(number int) []*github.IssueComment {
	out := []*github.IssueComment{}
	for _, cm := range r.comments {
		if cm.number == number {
			out = append(out, copyComment(cm.c))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetID() < out[j].GetID() })
	return out
}

func handleCreateComment(c *reqCtx) {
	var body struct {
		Body *string `json:"body"`
	}
	if !c.decode(&body) {
		return
	}
	if body.Body == nil || *body.Body == "" {
		c.error(http.StatusUnprocessableEntity, "Validation Failed: body is required")
		return
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, ok := c.prOrFail()
	if !ok {
		return
	}
	c.json(http.StatusCreated, r.addComment(pr, c.actor, *body.Body))
}

func handleGetComment(c *reqCtx) {
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	cm, ok := c.commentOrFail()
	if !ok {
		return
	}
	c.json(http.StatusOK, cm.c)
}

func handleEditComment(c *reqCtx) {
	var body struct {
		Body *string `json:"body"`
	}
	if !c.decode(&body) {
		return
	}
	if body.Body == nil || *body.Body == "" {
		c.error(http.StatusUnprocessableEntity, "Validation Failed: body is required")
		return
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	cm, ok := c.commentOrFail()
	if !ok {
		return
	}
	old := cm.c.GetBody()
	updated := copyComment(cm.c)
	updated.Body = github.String(*body.Body)
	updated.UpdatedAt = &github.Timestamp{Time: time.Now().UTC()}
	cm.c = updated
	if old != *body.Body {
		if pr, err := r.pr(cm.number); err == nil {
			r.emitIssueComment(pr, copyComment(updated), "edited", c.actor, &github.EditChange{Body: &github.EditBody{From: github.String(old)}})
		}
	}
	c.json(http.StatusOK, updated)
}

func handleCreateReaction(c *reqCtx) {
	var body struct {
		Content string `json:"content"`
	}
	if !c.decode(&body) {
		return
	}
	if !reactionContents[body.Content] {
		c.error(http.StatusUnprocessableEntity, "Validation Failed: invalid reaction content")
		return
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	cm, ok := c.commentOrFail()
	if !ok {
		return
	}
	for _, re := range cm.reactions {
		if re.GetContent() == body.Content && re.GetUser().GetLogin() == c.actor {
			c.json(http.StatusOK, re)
			return
		}
	}
	id := c.s.newID()
	re := &github.Reaction{
		ID:      github.Int64(id),
		NodeID:  github.String(fmt.Sprintf("REA_%d", id)),
		User:    c.s.user(c.actor),
		Content: github.String(body.Content),
	}
	cm.reactions = append(cm.reactions, re)
	c.json(http.StatusCreated, re)
}

func handleListReactions(c *reqCtx) {
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	cm, ok := c.commentOrFail()
	if !ok {
		return
	}
	c.json(http.StatusOK, page(c, append([]*github.Reaction{}, cm.reactions...)))
}
