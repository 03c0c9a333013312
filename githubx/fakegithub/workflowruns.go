package fakegithub

import (
	"fmt"
	"net/http"

	"github.com/google/go-github/v66/github"
)

// apiWorkflowRun renders a registered workflow run.
func (r *repo) apiWorkflowRun(w *WorkflowRun) *github.WorkflowRun {
	out := &github.WorkflowRun{
		ID:         github.Int64(w.ID),
		Name:       github.String(w.Name),
		HeadBranch: github.String(w.HeadBranch),
		HeadSHA:    github.String(w.HeadSHA),
		Status:     github.String(w.Status),
		Event:      github.String("push"),
		URL:        github.String(fmt.Sprintf("%s/actions/runs/%d", r.apiURL(), w.ID)),
		HTMLURL:    github.String(fmt.Sprintf("%s/actions/runs/%d", r.htmlURL(), w.ID)),
		Repository: r.apiRepo(),
	}
	if w.Conclusion != "" {
		out.Conclusion = github.String(w.Conclusion)
	}
	return out
}

func handleGetWorkflowRun(c *reqCtx) {
	id, ok := c.intParam("id")
	if !ok {
		return
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.workflowRuns[id]
	if !ok {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	c.json(http.StatusOK, r.apiWorkflowRun(w))
}
