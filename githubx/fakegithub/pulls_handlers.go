package fakegithub

import (
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
)

// prOrFail looks up the {number} PR; on a miss it answers 404. Caller
// holds r.mu.
func (c *reqCtx) prOrFail() (*pullRequest, bool) {
	n, ok := c.intParam("number")
	if !ok {
		return nil, false
	}
	pr, err := c.repo.pr(int(n))
	if err != nil {
		c.fail(err)
		return nil, false
	}
	return pr, true
}

func handleGetPull(c *reqCtx) {
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, ok := c.prOrFail()
	if !ok {
		return
	}
	if pr.unknownGets > 0 && !pr.merged {
		pr.unknownGets--
		c.json(http.StatusOK, r.prJSON(pr, nil, "unknown"))
		return
	}
	p, err := r.prJSONFull(pr)
	if err != nil {
		c.fail(err)
		return
	}
	c.json(http.StatusOK, p)
}

func handleListPulls(c *reqCtx) {
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	base := q.Get("base")
	head := q.Get("head")
	if _, after, ok := strings.Cut(head, ":"); ok {
		head = after
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	ns := r.prNumbers()
	out := make([]*github.PullRequest, 0, len(ns))
	for i := len(ns) - 1; i >= 0; i-- {
		pr := r.prs[ns[i]]
		if state != "all" && pr.state != state {
			continue
		}
		if base != "" && pr.baseRef != base || head != "" && pr.headRef != head {
			continue
		}
		out = append(out, r.prJSON(pr, nil, ""))
	}
	c.json(http.StatusOK, page(c, out))
}

func handleCreatePull(c *reqCtx) {
	var body struct {
		Title string `json:"title"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Body  string `json:"body"`
		Draft bool   `json:"draft"`
	}
	if !c.decode(&body) {
		return
	}
	if body.Head == "" || body.Base == "" || body.Title == "" {
		c.error(http.StatusUnprocessableEntity, "Validation Failed: title, head and base are required")
		return
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, err := r.openPR(PROptions{Head: body.Head, Base: body.Base, Title: body.Title, Body: body.Body, Author: c.actor, Draft: body.Draft})
	if err != nil {
		c.fail(err)
		return
	}
	p, err := r.prJSONFull(pr)
	if err != nil {
		c.fail(err)
		return
	}
	c.json(http.StatusCreated, p)
}

// prEdit is a partial update of a PR's title, body or base.
type prEdit struct {
	Title *string `json:"title"`
	Body  *string `json:"body"`
	State *string `json:"state"`
	Base  *string `json:"base"`
}

// editPR applies an edit, sending "edited" (with changes) and "closed" or
// "reopened" as GitHub does. Caller holds r.mu.
func (r *repo) editPR(pr *pullRequest, e prEdit, sender string) error {
	if e.State != nil && *e.State != "open" && *e.State != "closed" {
		return errValidation("Validation Failed: state must be open or closed")
	}
	changes := &github.EditChange{}
	changed := false
	if e.Base != nil && *e.Base != pr.baseRef {
		if pr.state != "open" {
			return errValidation("Validation Failed: cannot change the base of a closed pull request")
		}
		if _, ok, err := r.branchSHA(*e.Base); err != nil {
			return err
		} else if !ok {
			return errValidation("Validation Failed: base " + *e.Base + " does not exist")
		}
		changes.Base = &github.EditBase{Ref: &github.EditRef{From: github.String(pr.baseRef)}}
		pr.baseRef = *e.Base
		changed = true
	}
	if e.Title != nil && *e.Title != pr.title {
		changes.Title = &github.EditTitle{From: github.String(pr.title)}
		pr.title = *e.Title
		changed = true
	}
	if e.Body != nil && *e.Body != pr.body {
		changes.Body = &github.EditBody{From: github.String(pr.body)}
		pr.body = *e.Body
		changed = true
	}
	if changed {
		pr.updatedAt = time.Now().UTC()
		r.emitPR(pr, "edited", sender, func(ev *github.PullRequestEvent) { ev.Changes = changes })
	}
	if e.State != nil {
		switch {
		case *e.State == "closed":
			r.closePR(pr, sender)
		case pr.state == "closed":
			return r.reopenPR(pr, sender)
		}
	}
	return nil
}

func handleUpdatePull(c *reqCtx) {
	var body prEdit
	if !c.decode(&body) {
		return
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, ok := c.prOrFail()
	if !ok {
		return
	}
	if err := r.editPR(pr, body, c.actor); err != nil {
		c.fail(err)
		return
	}
	p, err := r.prJSONFull(pr)
	if err != nil {
		c.fail(err)
		return
	}
	c.json(http.StatusOK, p)
}

// handleIsMerged serves GET /pulls/{n}/merge: 204 if merged, else 404.
func handleIsMerged(c *reqCtx) {
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, ok := c.prOrFail()
	if !ok {
		return
	}
	if !pr.merged {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	c.noContent()
}
