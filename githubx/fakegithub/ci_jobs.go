package fakegithub

import (
	"fmt"
	"html"
	"net/http"
	"strconv"

	"github.com/google/go-github/v66/github"
)

// targetURL is the fake CI page of a run.
func (ci *ciRunner) targetURL(run *ciRun) string {
	return fmt.Sprintf("%s/ci/runs/%d", ci.s.URL(), run.ID)
}

// start posts the pending statuses and in-progress check runs, then the
// result unless the run is held.
func (ci *ciRunner) start(run *ciRun) {
	r := run.repo
	r.mu.Lock()
	for _, c := range ci.contexts {
		r.addStatus(run.SHA, "pending", c, ci.targetURL(run), "CI is running", ciLogin)
	}
	if ci.opts.Actions && len(ci.opts.CheckRuns) > 0 {
		r.workflowRuns[run.ID] = &WorkflowRun{ID: run.ID, Name: "CI", HeadBranch: run.Branch, HeadSHA: run.SHA,
			Status: "in_progress", CheckSuiteID: r.suiteID(actionsAppID, run.SHA)}
	}
	for _, name := range ci.opts.CheckRuns {
		cr := r.addCheckRun(run.SHA, ci.app(), &checkRunInput{
			Name:       github.String(name),
			Status:     github.String("in_progress"),
			DetailsURL: github.String(ci.targetURL(run)),
			ExternalID: github.String(strconv.FormatInt(run.ID, 10)),
		}, ciLogin)
		run.checkIDs = append(run.checkIDs, cr.GetID())
	}
	r.mu.Unlock()
	if !run.held {
		ci.finish(run, nil)
	}
}

// passes evaluates a commit: FailIf on its files, else no root FAIL file.
func (ci *ciRunner) passes(run *ciRun) bool {
	g := run.repo.git
	if ci.opts.FailIf != nil {
		files, err := g.files(run.SHA)
		if err != nil {
			return false
		}
		return !ci.opts.FailIf(files)
	}
	_, fail, err := g.fileAt(run.SHA, "FAIL")
	return err == nil && !fail
}

// finish posts a run's final statuses, completes its check runs and sends
// check_suite completed. A run finishes once.
func (ci *ciRunner) finish(run *ciRun, pass *bool) {
	ci.mu.Lock()
	done := run.Result != ""
	ci.mu.Unlock()
	if done {
		return
	}
	ok := pass != nil && *pass
	if pass == nil {
		ci.mu.Lock()
		cur := run.CIRun
		ci.mu.Unlock()
		ok = (ci.opts.FailAttempt == nil || !ci.opts.FailAttempt(cur)) && ci.passes(run)
	}
	state, conclusion, desc := "success", "success", "All checks passed"
	if !ok {
		state, conclusion, desc = "failure", "failure", "Tests failed"
	}
	r := run.repo
	r.mu.Lock()
	ci.mu.Lock()
	first := run.Attempt <= 1 // a re-run runs check runs again, not statuses
	ids := run.checkIDs
	ci.mu.Unlock()
	for _, c := range ci.contexts {
		if first {
			r.addStatus(run.SHA, state, c, ci.targetURL(run), desc, ciLogin)
		}
	}
	if w, found := r.workflowRuns[run.ID]; found && ci.opts.Actions {
		w.Status, w.Conclusion = "completed", conclusion
	}
	for _, id := range ids {
		if cr, found := r.checkRuns[id]; found {
			r.updateCheckRun(cr, &checkRunInput{
				Conclusion: github.String(conclusion),
				Output:     &github.CheckRunOutput{Title: github.String(desc), Summary: github.String(desc)},
			}, ciLogin)
		}
	}
	app := ci.app()
	r.emitCheckSuite(&github.CheckSuite{
		ID:           github.Int64(r.suiteID(app.GetID(), run.SHA)),
		HeadBranch:   github.String(run.Branch),
		HeadSHA:      github.String(run.SHA),
		Status:       github.String("completed"),
		Conclusion:   github.String(conclusion),
		App:          app,
		PullRequests: r.prRefsForSHA(run.SHA),
	}, "completed", ciLogin)
	r.mu.Unlock()
	ci.mu.Lock()
	run.Result = conclusion
	ci.mu.Unlock()
}

// handleCIPage serves the target_url of CI statuses.
func (s *Server) handleCIPage(c *reqCtx) {
	id, ok := c.intParam("id")
	if !ok {
		return
	}
	s.ci.mu.Lock()
	var found *CIRun
	for _, run := range s.ci.runs {
		if run.ID == id {
			cp := run.CIRun
			found = &cp
		}
	}
	s.ci.mu.Unlock()
	if found == nil {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	result := found.Result
	if result == "" {
		result = "pending"
	}
	c.w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(c.w, "<!doctype html><title>CI run %d</title><h1>CI run %d: %s</h1><p>%s %s @ %s</p>\n",
		found.ID, found.ID, html.EscapeString(result), html.EscapeString(found.Repo), html.EscapeString(found.Branch), html.EscapeString(found.SHA))
}
