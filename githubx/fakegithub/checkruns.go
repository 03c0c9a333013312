package fakegithub

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/google/go-github/v66/github"
)

var (
	checkStatuses    = map[string]bool{"queued": true, "in_progress": true, "completed": true, "waiting": true, "requested": true, "pending": true}
	checkConclusions = map[string]bool{"action_required": true, "cancelled": true, "failure": true, "neutral": true, "success": true, "skipped": true, "stale": true, "timed_out": true}
)

// checkRunInput is the body of POST/PATCH check-runs (all optional).
type checkRunInput struct {
	Name        *string                `json:"name"`
	HeadSHA     *string                `json:"head_sha"`
	DetailsURL  *string                `json:"details_url"`
	ExternalID  *string                `json:"external_id"`
	Status      *string                `json:"status"`
	Conclusion  *string                `json:"conclusion"`
	StartedAt   *github.Timestamp      `json:"started_at"`
	CompletedAt *github.Timestamp      `json:"completed_at"`
	Output      *github.CheckRunOutput `json:"output"`
}

// validate checks enum values; a completed run needs a conclusion.
func (in *checkRunInput) validate(current *github.CheckRun) error {
	if in.Status != nil && !checkStatuses[*in.Status] {
		return errValidation("Validation Failed: invalid status " + *in.Status)
	}
	if in.Conclusion != nil && !checkConclusions[*in.Conclusion] {
		return errValidation("Validation Failed: invalid conclusion " + *in.Conclusion)
	}
	if in.Status != nil && *in.Status == "completed" && in.Conclusion == nil && (current == nil || current.Conclusion == nil) {
		return errValidation("Validation Failed: conclusion is required when status is completed")
	}
	return nil
}

// apply updates cr from in and reports whether it just became completed.
func (in *checkRunInput) apply(cr *github.CheckRun) bool {
	wasDone := cr.GetStatus() == "completed"
	if in.Name != nil {
		cr.Name = in.Name
	}
	if in.DetailsURL != nil {
		cr.DetailsURL = in.DetailsURL
	}
	if in.ExternalID != nil {
		cr.ExternalID = in.ExternalID
	}
	if in.Status != nil {
		cr.Status = in.Status
	}
	if in.StartedAt != nil {
		cr.StartedAt = in.StartedAt
	}
	if in.Output != nil {
		cr.Output = in.Output
	}
	if in.Conclusion != nil {
		cr.Conclusion = in.Conclusion
		cr.Status = github.String("completed")
	}
	if cr.GetStatus() == "completed" && cr.CompletedAt == nil {
		cr.CompletedAt = &github.Timestamp{Time: time.Now().UTC()}
	}
	if in.CompletedAt != nil {
		cr.CompletedAt = in.CompletedAt
	}
	return !wasDone && cr.GetStatus() == "completed"
}

// addCheckRun creates a check run for app on sha, sending check_run
// "created" (and "completed" if created completed). Caller holds r.mu.
func (r *repo) addCheckRun(sha string, app *github.App, in *checkRunInput, sender string) *github.CheckRun {
	id := r.s.newID()
	now := time.Now().UTC()
	suite := r.suiteID(app.GetID(), sha)
	cr := &github.CheckRun{
		ID:         github.Int64(id),
		NodeID:     github.String(fmt.Sprintf("CR_%d", id)),
		HeadSHA:    github.String(sha),
		Status:     github.String("queued"),
		StartedAt:  &github.Timestamp{Time: now},
		URL:        github.String(fmt.Sprintf("%s/check-runs/%d", r.apiURL(), id)),
		HTMLURL:    github.String(fmt.Sprintf("%s/runs/%d", r.htmlURL(), id)),
		App:        app,
		CheckSuite: &github.CheckSuite{ID: github.Int64(suite)},
	}
	completed := in.apply(cr)
	cr.PullRequests = r.prRefsForSHA(sha)
	r.checkRuns[id] = cr
	r.checkOrder = append(r.checkOrder, id)
	r.s.mu.Lock()
	r.s.checkRunRepo[id] = r
	r.s.mu.Unlock()
	r.emitCheckRun(copyCheckRun(cr), "created", sender)
	if completed {
		r.emitCheckRun(copyCheckRun(cr), "completed", sender)
	}
	return copyCheckRun(cr)
}

// updateCheckRun applies in to a check run, sending "completed" when it
// completes. Caller holds r.mu.
func (r *repo) updateCheckRun(cr *github.CheckRun, in *checkRunInput, sender string) *github.CheckRun {
	if in.apply(cr) {
		r.emitCheckRun(copyCheckRun(cr), "completed", sender)
	}
	return copyCheckRun(cr)
}

func copyCheckRun(cr *github.CheckRun) *github.CheckRun {
	cp := *cr
	return &cp
}

// prRefsForSHA lists the open PRs whose head is sha, as check runs show
// them. Caller holds r.mu.
func (r *repo) prRefsForSHA(sha string) []*github.PullRequest {
	var out []*github.PullRequest
	for _, n := range r.prNumbers() {
		pr := r.prs[n]
		if pr.state != "open" || pr.headSHA != sha {
			continue
		}
		out = append(out, &github.PullRequest{
			Number: github.Int(pr.number),
			URL:    github.String(fmt.Sprintf("%s/pulls/%d", r.apiURL(), pr.number)),
			Head:   &github.PullRequestBranch{Ref: github.String(pr.headRef), SHA: github.String(pr.headSHA)},
			Base:   &github.PullRequestBranch{Ref: github.String(pr.baseRef)},
		})
	}
	return out
}

func handleCreateCheckRun(c *reqCtx) {
	if !c.appOnly() {
		return
	}
	var in checkRunInput
	if !c.decode(&in) {
		return
	}
	if in.Name == nil || *in.Name == "" || in.HeadSHA == nil {
		c.error(http.StatusUnprocessableEntity, "Validation Failed: name and head_sha are required")
		return
	}
	if err := in.validate(nil); err != nil {
		c.fail(err)
		return
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	sha, ok := c.resolveOrFail(*in.HeadSHA)
	if !ok {
		return
	}
	c.json(http.StatusCreated, r.addCheckRun(sha, c.s.apiApp(), &in, c.actor))
}

// checkRunOrFail looks up the {id} check run of this repo. Caller holds
// r.mu.
func (c *reqCtx) checkRunOrFail() (*github.CheckRun, bool) {
	id, ok := c.intParam("id")
	if !ok {
		return nil, false
	}
	cr, ok := c.repo.checkRuns[id]
	if !ok {
		c.error(http.StatusNotFound, "Not Found")
		return nil, false
	}
	return cr, true
}

func handleGetCheckRun(c *reqCtx) {
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	cr, ok := c.checkRunOrFail()
	if !ok {
		return
	}
	c.json(http.StatusOK, cr)
}

func handleUpdateCheckRun(c *reqCtx) {
	if !c.appOnly() {
		return
	}
	var in checkRunInput
	if !c.decode(&in) {
		return
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	cr, ok := c.checkRunOrFail()
	if !ok {
		return
	}
	if err := in.validate(cr); err != nil {
		c.fail(err)
		return
	}
	c.json(http.StatusOK, r.updateCheckRun(cr, &in, c.actor))
}

// checkRunsFor lists the check runs on sha, newest first; latest keeps only
// the newest per (app, name). Caller holds r.mu.
func (r *repo) checkRunsFor(sha string, latest bool) []*github.CheckRun {
	seen := map[string]bool{}
	out := []*github.CheckRun{}
	for i := len(r.checkOrder) - 1; i >= 0; i-- {
		cr := r.checkRuns[r.checkOrder[i]]
		if cr.GetHeadSHA() != sha {
			continue
		}
		key := strconv.FormatInt(cr.GetApp().GetID(), 10) + "/" + cr.GetName()
		if latest && seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, copyCheckRun(cr))
	}
	return out
}

func handleListCheckRuns(c *reqCtx) {
	sha, ok := c.resolveOrFail(c.params["ref"])
	if !ok {
		return
	}
	q := c.r.URL.Query()
	r := c.repo
	r.mu.Lock()
	all := r.checkRunsFor(sha, q.Get("filter") != "all")
	r.mu.Unlock()
	runs := []*github.CheckRun{}
	for _, cr := range all {
		if name := q.Get("check_name"); name != "" && cr.GetName() != name {
			continue
		}
		if st := q.Get("status"); st != "" && cr.GetStatus() != st {
			continue
		}
		if app := q.Get("app_id"); app != "" && strconv.FormatInt(cr.GetApp().GetID(), 10) != app {
			continue
		}
		runs = append(runs, cr)
	}
	c.json(http.StatusOK, &github.ListCheckRunsResults{Total: github.Int(len(runs)), CheckRuns: page(c, runs)})
}

// suiteID returns the id of app's check suite on sha. Caller holds r.mu.
func (r *repo) suiteID(appID int64, sha string) int64 {
	key := strconv.FormatInt(appID, 10) + "/" + sha
	id, ok := r.suites[key]
	if !ok {
		id = r.s.newID()
		r.suites[key] = id
	}
	return id
}
