package fakegithub

import (
	"net/http"
	"strconv"

	"github.com/google/go-github/v66/github"
)

// GitHub Actions' own App, whose check runs are the jobs of workflow runs.
const (
	actionsAppID = 15368
	actionsSlug  = "github-actions"
)

// notAccessible is GitHub's answer to an installation token lacking the
// permission an endpoint needs.
const notAccessible = "Resource not accessible by integration"

// app is the App the simulated CI's check runs belong to: GitHub Actions
// (CIOptions.Actions) or the fake CI App.
func (ci *ciRunner) app() *github.App {
	if ci.opts.Actions {
		return &github.App{ID: github.Int64(actionsAppID), Slug: github.String(actionsSlug), Name: github.String("GitHub Actions")}
	}
	return ciApp()
}

// RefusePermission makes the App lack a repository permission from now on:
// "actions" (write: rerun-failed-jobs) or "checks" (write: re-requesting a
// check suite); those endpoints answer 403 "Resource not accessible by
// integration", as GitHub does when the installation was not granted it.
func (s *Server) RefusePermission(permission string) {
	s.ci.mu.Lock()
	defer s.ci.mu.Unlock()
	if s.ci.refused == nil {
		s.ci.refused = map[string]bool{}
	}
	s.ci.refused[permission] = true
}

// permitted answers 403 unless the App holds permission.
func (c *reqCtx) permitted(permission string) bool {
	c.s.ci.mu.Lock()
	refused := c.s.ci.refused[permission]
	c.s.ci.mu.Unlock()
	if refused {
		c.error(http.StatusForbidden, notAccessible)
		return false
	}
	return true
}

// handleListWorkflowRuns lists the repository's workflow runs, newest
// first, filtered by check_suite_id and head_sha when given.
func handleListWorkflowRuns(c *reqCtx) {
	q := c.r.URL.Query()
	suite, _ := strconv.ParseInt(q.Get("check_suite_id"), 10, 64)
	sha := q.Get("head_sha")
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	out := &github.WorkflowRuns{WorkflowRuns: []*github.WorkflowRun{}}
	for _, w := range r.workflowRuns {
		if (suite != 0 && w.CheckSuiteID != suite) || (sha != "" && w.HeadSHA != sha) {
			continue
		}
		out.WorkflowRuns = append(out.WorkflowRuns, r.apiWorkflowRun(w))
	}
	// Newest first, as GitHub lists them (ids count up).
	runs := out.WorkflowRuns
	for i := 1; i < len(runs); i++ {
		for j := i; j > 0 && runs[j].GetID() > runs[j-1].GetID(); j-- {
			runs[j], runs[j-1] = runs[j-1], runs[j]
		}
	}
	out.TotalCount = github.Int(len(runs))
	c.json(http.StatusOK, out)
}

// handleRerunFailedJobs runs the failed jobs of a completed workflow run
// of the simulated CI again (CIOptions.Actions): each gets a new check
// run on the same commit, and the attempt counts up.
func handleRerunFailedJobs(c *reqCtx) {
	if !c.appOnly() || !c.permitted("actions") {
		return
	}
	id, ok := c.intParam("id")
	if !ok {
		return
	}
	r := c.repo
	r.mu.Lock()
	if _, found := r.workflowRuns[id]; !found {
		r.mu.Unlock()
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	run := c.s.ci.byID(id)
	if run == nil || run.repo != r {
		r.mu.Unlock()
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	c.rerunAndAnswer(run, true, http.StatusForbidden, "This workflow run is not completed or has no failed jobs")
}

// handleRerequestCheckSuite runs the check runs of the simulated CI's
// suite again (its newest run on the suite's commit), each as a new check
// run. Only the CI's own App suites can be re-requested here.
func handleRerequestCheckSuite(c *reqCtx) {
	if !c.appOnly() || !c.permitted("checks") {
		return
	}
	id, ok := c.intParam("id")
	if !ok {
		return
	}
	r := c.repo
	r.mu.Lock()
	var run *ciRun
	c.s.ci.mu.Lock()
	appID := c.s.ci.app().GetID()
	for _, cand := range c.s.ci.runs {
		if cand.repo == r && r.suites[strconv.FormatInt(appID, 10)+"/"+cand.SHA] == id {
			run = cand
		}
	}
	c.s.ci.mu.Unlock()
	if run == nil {
		r.mu.Unlock()
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	c.rerunAndAnswer(run, false, http.StatusUnprocessableEntity, "Validation Failed: the check suite is not completed")
}

// rerunAndAnswer re-runs run (its failed jobs only, or all of it) and
// answers 201, or refusedStatus with refused when it cannot be re-run.
// The caller holds c.repo.mu; it is released here.
func (c *reqCtx) rerunAndAnswer(run *ciRun, failedOnly bool, refusedStatus int, refused string) {
	started := c.s.ci.rerun(run, failedOnly)
	c.repo.mu.Unlock()
	if !started {
		c.error(refusedStatus, refused)
		return
	}
	c.s.ci.finishUnlessHeld(run)
	c.json(http.StatusCreated, map[string]any{})
}

// finishUnlessHeld queues the result of a re-run's attempt, unless the CI
// is held (SetCIHold): then it stays pending until ReleaseCI or
// CompleteCI.
func (ci *ciRunner) finishUnlessHeld(run *ciRun) {
	ci.mu.Lock()
	run.held = ci.hold
	held := run.held
	ci.mu.Unlock()
	if !held {
		ci.enqueue(&ciJob{run: run, finish: true})
	}
}

// byID is the CI run id (nil if none).
func (ci *ciRunner) byID(id int64) *ciRun {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	for _, run := range ci.runs {
		if run.ID == id {
			return run
		}
	}
	return nil
}

// rerun starts the next attempt of a completed run: a new in-progress
// check run for each of its check runs (onlyFailed: each that did not
// pass), which the next finish completes. It reports false when the run
// is not completed or nothing is to run again. Caller holds run.repo.mu.
func (ci *ciRunner) rerun(run *ciRun, onlyFailed bool) bool {
	r := run.repo
	ci.mu.Lock()
	done, old := run.Result != "", run.checkIDs
	ci.mu.Unlock()
	if !done {
		return false
	}
	var again []int64
	for _, id := range old {
		cr, found := r.checkRuns[id]
		if !found || (onlyFailed && ghPassed(cr)) {
			continue
		}
		nr := r.addCheckRun(run.SHA, ci.app(), &checkRunInput{
			Name:       cr.Name,
			Status:     github.String("in_progress"),
			DetailsURL: cr.DetailsURL,
			ExternalID: cr.ExternalID,
		}, ciLogin)
		again = append(again, nr.GetID())
	}
	if len(again) == 0 {
		return false
	}
	if w, found := r.workflowRuns[run.ID]; found {
		w.Status, w.Conclusion = "in_progress", ""
	}
	ci.mu.Lock()
	run.checkIDs = again
	run.Attempt++
	run.Result = ""
	ci.mu.Unlock()
	return true
}

// ghPassed reports whether a completed check run passed.
func ghPassed(cr *github.CheckRun) bool {
	switch cr.GetConclusion() {
	case "success", "neutral", "skipped":
		return true
	}
	return false
}
