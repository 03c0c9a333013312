package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// testingDetailsRequest: repo, targetBranch and the testRunId (the last
// segment of a test branch name mq-merge/pr-<N>/<testRunId>).
type testingDetailsRequest struct {
	queueRequest
	TestRunID string `json:"testRunId"`
}

type checkRunJSON struct {
	Name       string  `json:"name"`
	URL        string  `json:"url"`
	Status     string  `json:"status"`
	Conclusion *string `json:"conclusion"`
}

type checkSuiteJSON struct {
	CheckRuns []checkRunJSON `json:"checkRuns"`
}

type statusCheckJSON struct {
	Context string `json:"context"`
	URL     string `json:"url"`
	State   string `json:"state"`
}

type testedPRJSON struct {
	PRNumber int    `json:"prNumber"`
	PRURL    string `json:"prUrl"`
	Title    string `json:"title"`
}

// targetsValue renders impacted targets the way clients upload them: a
// list of names, or the string "ALL".
type targetsValue struct {
	all  bool
	list []string
}

func (t targetsValue) MarshalJSON() ([]byte, error) {
	if t.all {
		return []byte(`"ALL"`), nil
	}
	list := t.list
	if list == nil {
		list = []string{}
	}
	return json.Marshal(list)
}

type prTargetsJSON struct {
	PRNumber        int          `json:"prNumber"`
	PRSHA           string       `json:"prSha"`
	ImpactedTargets targetsValue `json:"impactedTargets"`
}

type failureStatusJSON struct {
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// testingDetailsJSON is the getMergeQueueTestingDetails response (SPEC §7)
// plus requiredStatusesSource, which newer clients of the hosted API
// require. The optional fields are omitted when there is nothing to say.
type testingDetailsJSON struct {
	RequiredStatuses []string `json:"requiredStatuses"`
	// RequiredStatusesSource is where requiredStatuses came from:
	// merge_instance (the queue's requiredStatuses), branch_protection, or
	// unknown for a run recorded before the source was kept.
	RequiredStatusesSource      string             `json:"requiredStatusesSource"`
	TestBranch                  string             `json:"testBranch"`
	TestBranchSHA               string             `json:"testBranchSha"`
	CreatedAt                   string             `json:"createdAt"`
	Status                      string             `json:"status"`
	CheckSuites                 []checkSuiteJSON   `json:"checkSuites"`
	StatusChecks                []statusCheckJSON  `json:"statusChecks"`
	TestedPullRequests          []testedPRJSON     `json:"testedPullRequests"`
	DependentPRs                []int              `json:"dependentPrs"`
	ImpactedTargets             *targetsValue      `json:"impactedTargets,omitempty"`
	ImpactedTargetsForTestedPRs []prTargetsJSON    `json:"impactedTargetsForTestedPrs,omitempty"`
	WaitingOn                   []int              `json:"waitingOn,omitempty"`
	FailureStatus               *failureStatusJSON `json:"failureStatus,omitempty"`
	// TestPRNumber is the run's draft test PR (createPrsForTestingBranches),
	// omitted when it has none.
	TestPRNumber int `json:"testPrNumber,omitempty"`
	// TimesOutAt (our addition) is when the run times out, omitted when it
	// is not in progress or the queue has no testing timeout.
	TimesOutAt *string `json:"timesOutAt,omitempty"`
}

// unknownSource is the requiredStatusesSource of runs recorded before the
// source was kept.
const unknownSource = "unknown"

// requiredStatusesSource shows where a run's required checks came from.
func requiredStatusesSource(src queue.RequiredSource) string {
	if src == "" {
		return unknownSource
	}
	return string(src)
}

// runStatus maps a run's status to the wire: building is in_progress.
func runStatus(s queue.RunStatus) string {
	if s == queue.RunBuilding {
		return string(queue.RunInProgress)
	}
	return string(s)
}

// newCheckRunJSON shows a check run as GitHub does: a status, and a
// conclusion once completed.
func newCheckRunJSON(c queue.CheckResult) checkRunJSON {
	out := checkRunJSON{Name: c.Name, URL: c.URL}
	if c.State == queue.CheckPending {
		out.Status = "in_progress"
		switch raw := strings.ToLower(c.Raw); raw {
		case "queued", "in_progress", "waiting", "requested", "pending":
			out.Status = raw
		}
		return out
	}
	out.Status = "completed"
	conclusion := strings.ToLower(c.Raw)
	if conclusion == "" {
		conclusion = string(c.State)
	}
	out.Conclusion = &conclusion
	return out
}

func (a *API) newTestingDetailsJSON(d *readside.TestingDetails) testingDetailsJSON {
	run := d.Run
	out := testingDetailsJSON{
		RequiredStatuses:       append([]string{}, run.RequiredChecks...),
		RequiredStatusesSource: requiredStatusesSource(run.RequiredSource),
		TestBranch:             run.Branch,
		TestBranchSHA:          run.SHA,
		CreatedAt:              timestamp(run.CreatedAt),
		Status:                 runStatus(run.Status),
		TestPRNumber:           d.TestPRNumber,
		CheckSuites:            []checkSuiteJSON{},
		StatusChecks:           []statusCheckJSON{},
		TestedPullRequests:     []testedPRJSON{},
		DependentPRs:           append([]int{}, d.DependentPRs...),
		WaitingOn:              d.WaitingOn,
		TimesOutAt:             optTimestamp(d.TimesOutAt),
	}
	var runs []checkRunJSON
	for _, c := range d.Checks {
		if c.Kind == queue.KindCheckRun {
			runs = append(runs, newCheckRunJSON(c))
			continue
		}
		state := strings.ToLower(c.Raw)
		if state == "" {
			state = string(c.State)
		}
		out.StatusChecks = append(out.StatusChecks, statusCheckJSON{Context: c.Name, URL: c.URL, State: state})
	}
	if len(runs) > 0 {
		out.CheckSuites = append(out.CheckSuites, checkSuiteJSON{CheckRuns: runs})
	}
	repo := d.Queue.Key.Repo
	for _, pr := range d.Tested {
		out.TestedPullRequests = append(out.TestedPullRequests, testedPRJSON{PRNumber: pr.Number,
			PRURL: a.pullURL(repo, pr.Number), Title: pr.Title})
	}
	if d.Union != nil {
		out.ImpactedTargets = &targetsValue{all: d.Union.All, list: d.Union.List}
	}
	for _, pr := range d.Tested {
		if t := d.Targets[pr.Number]; t != nil {
			out.ImpactedTargetsForTestedPRs = append(out.ImpactedTargetsForTestedPRs,
				prTargetsJSON{PRNumber: pr.Number, PRSHA: t.SHA, ImpactedTargets: targetsValue{all: t.All, list: t.List}})
		}
	}
	sort.SliceStable(out.ImpactedTargetsForTestedPRs, func(i, j int) bool {
		return out.ImpactedTargetsForTestedPRs[i].PRNumber < out.ImpactedTargetsForTestedPRs[j].PRNumber
	})
	if run.Status == queue.RunFailed {
		out.FailureStatus = &failureStatusJSON{Reason: string(run.FailureReason), Detail: run.FailureDetail}
	}
	return out
}

// getMergeQueueTestingDetails (POST /v1/getMergeQueueTestingDetails)
// describes one test run of a queue by its testRunId: 404 if the queue or
// the run (in that queue) is unknown.
func (a *API) getMergeQueueTestingDetails(w http.ResponseWriter, r *http.Request) error {
	var req testingDetailsRequest
	if err := readJSON(w, r, &req); err != nil {
		return err
	}
	if err := req.queueRequest.validate(); err != nil {
		return err
	}
	id := strings.TrimSpace(req.TestRunID)
	if id == "" {
		return badRequestf("testRunId is required")
	}
	key, err := a.queueKey(r.Context(), req.queueRequest)
	if err != nil {
		return err
	}
	d, err := a.reads.TestingDetails(r.Context(), key, id)
	if err != nil {
		if errors.Is(err, queue.ErrNotFound) {
			return notFoundf("no test run %q in the queue for branch %q of %s", truncate(id), key.Branch, key.Repo.FullName())
		}
		return fmt.Errorf("failed to get test run %s of %s: %w", id, key, err)
	}
	return writeJSON(w, a.newTestingDetailsJSON(d))
}
