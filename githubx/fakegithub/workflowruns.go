package fakegithub

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"

	"github.com/google/go-github/v66/github"
)

// apiWorkflowRun renders a registered workflow run. Caller holds r.mu.
func (r *repo) apiWorkflowRun(w *WorkflowRun) *github.WorkflowRun {
	event := w.Event
	if event == "" {
		event = "push"
	}
	head := r.apiRepo()
	if w.HeadRepo != "" {
		head = r.forkRepo(w.HeadRepo)
	}
	out := &github.WorkflowRun{
		ID:             github.Int64(w.ID),
		Name:           github.String(w.Name),
		HeadBranch:     github.String(w.HeadBranch),
		HeadSHA:        github.String(w.HeadSHA),
		Status:         github.String(w.Status),
		Event:          github.String(event),
		URL:            github.String(fmt.Sprintf("%s/actions/runs/%d", r.apiURL(), w.ID)),
		HTMLURL:        github.String(fmt.Sprintf("%s/actions/runs/%d", r.htmlURL(), w.ID)),
		Repository:     r.apiRepo(),
		HeadRepository: head,
		PullRequests:   []*github.PullRequest{},
	}
	for _, n := range w.PullRequests {
		out.PullRequests = append(out.PullRequests, &github.PullRequest{
			Number: github.Int(n),
			URL:    github.String(fmt.Sprintf("%s/pulls/%d", r.apiURL(), n)),
		})
	}
	if w.Conclusion != "" {
		out.Conclusion = github.String(w.Conclusion)
	}
	if w.CheckSuiteID != 0 {
		out.CheckSuiteID = github.Int64(w.CheckSuiteID)
	}
	return out
}

// forkRepo renders a fork of this repository named fullName ("owner/name").
// Forks are not repositories of the fake: they only appear as the head
// repository of PRs and workflow runs from forks.
func (r *repo) forkRepo(fullName string) *github.Repository {
	owner, name, _ := strings.Cut(fullName, "/")
	return &github.Repository{
		ID:       github.Int64(forkID(fullName)),
		Name:     github.String(name),
		FullName: github.String(fullName),
		Owner:    r.s.user(owner),
		Fork:     github.Bool(true),
		Private:  github.Bool(false),
		HTMLURL:  github.String(r.s.URL() + "/" + fullName),
	}
}

// forkID is a stable repository id for a fork, apart from the fake's own
// ids (which count up from 1).
func forkID(fullName string) int64 {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(fullName)))
	return 1<<40 + int64(h.Sum32())
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
