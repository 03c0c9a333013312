package fakegithub

import (
	"fmt"
	"net/http"
	"time"

	"github.com/google/go-github/v66/github"
)

// statusStates are the commit status states GitHub accepts.
var statusStates = map[string]bool{"pending": true, "success": true, "failure": true, "error": true}

// addStatus records a commit status and sends the status webhook. Caller
// holds r.mu.
func (r *repo) addStatus(sha, state, context, targetURL, description, creator string) *github.RepoStatus {
	if context == "" {
		context = "default"
	}
	id := r.s.newID()
	now := time.Now().UTC()
	st := &github.RepoStatus{
		ID:          github.Int64(id),
		NodeID:      github.String(fmt.Sprintf("SC_%d", id)),
		URL:         github.String(r.apiURL() + "/statuses/" + sha),
		State:       github.String(state),
		Context:     github.String(context),
		Creator:     r.s.user(creator),
		CreatedAt:   &github.Timestamp{Time: now},
		UpdatedAt:   &github.Timestamp{Time: now},
		TargetURL:   github.String(targetURL),
		Description: github.String(description),
	}
	r.statuses[sha] = append(r.statuses[sha], st)
	r.emitStatus(st, sha, creator)
	return st
}

// statusesNewestFirst lists a commit's statuses, newest first. Caller holds
// r.mu.
func (r *repo) statusesNewestFirst(sha string) []*github.RepoStatus {
	list := r.statuses[sha]
	out := make([]*github.RepoStatus, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- {
		cp := *list[i]
		out = append(out, &cp)
	}
	return out
}

// combinedStatus is the latest status per context and the overall state:
// failure if any is failure/error, else pending if any is pending or there
// are none, else success. Caller holds r.mu.
func (r *repo) combinedStatus(sha string) *github.CombinedStatus {
	seen := map[string]bool{}
	latest := []*github.RepoStatus{}
	for _, st := range r.statusesNewestFirst(sha) {
		if seen[st.GetContext()] {
			continue
		}
		seen[st.GetContext()] = true
		latest = append(latest, st)
	}
	state := "success"
	if len(latest) == 0 {
		state = "pending"
	}
	for _, st := range latest {
		switch st.GetState() {
		case "failure", "error":
			state = "failure"
		case "pending":
			if state != "failure" {
				state = "pending"
			}
		}
	}
	return &github.CombinedStatus{
		State:         github.String(state),
		Name:          github.String(r.fullName()),
		SHA:           github.String(sha),
		TotalCount:    github.Int(len(latest)),
		Statuses:      latest,
		CommitURL:     github.String(r.apiURL() + "/commits/" + sha),
		RepositoryURL: github.String(r.apiURL()),
	}
}

func handleCreateStatus(c *reqCtx) {
	var body struct {
		State       string `json:"state"`
		TargetURL   string `json:"target_url"`
		Description string `json:"description"`
		Context     string `json:"context"`
	}
	if !c.decode(&body) {
		return
	}
	if !statusStates[body.State] {
		c.error(http.StatusUnprocessableEntity, "Validation Failed: state must be one of pending, success, failure, error")
		return
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	sha, ok := c.resolveOrFail(c.params["sha"])
	if !ok {
		return
	}
	c.json(http.StatusCreated, r.addStatus(sha, body.State, body.Context, body.TargetURL, body.Description, c.actor))
}

func handleCombinedStatus(c *reqCtx) {
	sha, ok := c.resolveOrFail(c.params["ref"])
	if !ok {
		return
	}
	r := c.repo
	r.mu.Lock()
	cs := r.combinedStatus(sha)
	r.mu.Unlock()
	all := cs.Statuses
	cs.Statuses = page(c, all)
	c.json(http.StatusOK, cs)
}

func handleListStatuses(c *reqCtx) {
	sha, ok := c.resolveOrFail(c.params["ref"])
	if !ok {
		return
	}
	r := c.repo
	r.mu.Lock()
	list := r.statusesNewestFirst(sha)
	r.mu.Unlock()
	c.json(http.StatusOK, page(c, list))
}
