package fakegithub

import (
	"fmt"
	"strings"
	"time"
)

// openPR validates and opens a PR, sending "opened". Caller holds r.mu.
func (r *repo) openPR(p PROptions) (*pullRequest, error) {
	if p.Base == "" {
		p.Base = "main"
	}
	if p.Author == "" {
		p.Author = "octocat"
	}
	if p.Title == "" {
		p.Title = "Update " + p.Head
	}
	if _, after, ok := strings.Cut(p.Head, ":"); ok {
		p.Head = after
	}
	head, ok, err := r.branchSHA(p.Head)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errValidation("Validation Failed: head " + p.Head + " does not exist")
	}
	base, ok, err := r.branchSHA(p.Base)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errValidation("Validation Failed: base " + p.Base + " does not exist")
	}
	for _, n := range r.prNumbers() {
		o := r.prs[n]
		if o.state == "open" && o.headRef == p.Head && o.baseRef == p.Base {
			return nil, errValidation(fmt.Sprintf("A pull request already exists for %s:%s.", r.owner, p.Head))
		}
	}
	if contained, err := r.git.isAncestor(head, base); err != nil {
		return nil, err
	} else if contained {
		return nil, errValidation(fmt.Sprintf("No commits between %s and %s", p.Base, p.Head))
	}
	now := time.Now().UTC()
	pr := &pullRequest{
		number:    r.nextNumber,
		id:        r.s.newID(),
		title:     p.Title,
		body:      p.Body,
		author:    p.Author,
		headRef:   p.Head,
		headRepo:  p.HeadRepo,
		baseRef:   p.Base,
		headSHA:   head,
		state:     "open",
		draft:     p.Draft,
		createdAt: now,
		updatedAt: now,
	}
	r.nextNumber++
	r.prs[pr.number] = pr
	r.emitPR(pr, "opened", p.Author, nil)
	return pr, nil
}

// closePR closes an open PR without merging, sending "closed". Caller
// holds r.mu.
func (r *repo) closePR(pr *pullRequest, sender string) {
	if pr.state != "open" {
		return
	}
	now := time.Now().UTC()
	pr.state, pr.closedAt, pr.updatedAt = "closed", now, now
	if sha, ok, err := r.branchSHA(pr.baseRef); err == nil && ok {
		pr.baseSHA = sha
	}
	r.emitPR(pr, "closed", sender, nil)
}

// reopenPR reopens a closed, unmerged PR, sending "reopened". Caller holds
// r.mu.
func (r *repo) reopenPR(pr *pullRequest, sender string) error {
	if pr.merged {
		return errValidation("Validation Failed: cannot reopen a merged pull request")
	}
	if pr.state == "open" {
		return nil
	}
	if sha, ok, err := r.branchSHA(pr.headRef); err != nil {
		return err
	} else if !ok {
		return errValidation("Validation Failed: head branch was deleted")
	} else {
		pr.headSHA = sha
	}
	pr.state, pr.closedAt, pr.updatedAt = "open", time.Time{}, time.Now().UTC()
	r.emitPR(pr, "reopened", sender, nil)
	return nil
}

// setDraft converts a PR to draft or marks it ready for review. Caller
// holds r.mu.
func (r *repo) setDraft(pr *pullRequest, draft bool, sender string) {
	if pr.draft == draft {
		return
	}
	pr.draft, pr.updatedAt = draft, time.Now().UTC()
	action := "ready_for_review"
	if draft {
		action = "converted_to_draft"
	}
	r.emitPR(pr, action, sender, nil)
}
