package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path"
	"sync"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// seenAtPush is what a CI job asking getMergeQueueTestingDetails at its
// very start learned.
type seenAtPush struct {
	branch, sha string // the pushed test branch and its commit
	status      int
	details     struct {
		TestBranch    string `json:"testBranch"`
		TestBranchSHA string `json:"testBranchSha"`
	}
	err error
}

// A CI job that starts as the test branch is pushed and asks at once which
// commit it tests finds testBranchSha set to the pushed commit: the queue
// records the commit before it publishes the branch (issue #19).
func TestTestingDetailsOfAFreshlyPublishedBranchCarryItsSHA(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []seenAtPush
	var appURL, token string
	ci := fakegithub.CIOptions{AtPush: func(run fakegithub.CIRun) {
		mu.Lock()
		url, tok := appURL, token
		mu.Unlock()
		s := seenAtPush{branch: run.Branch, sha: run.SHA}
		body, _ := json.Marshal(map[string]any{"repo": repoBody(), "targetBranch": "main", "testRunId": path.Base(run.Branch)})
		req, err := http.NewRequest(http.MethodPost, url+"/v1/getMergeQueueTestingDetails", bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("x-api-token", tok)
			var resp *http.Response
			if resp, err = testHTTP.Do(req); err == nil {
				s.status = resp.StatusCode
				err = json.NewDecoder(resp.Body).Decode(&s.details)
				resp.Body.Close()
			}
		}
		s.err = err
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
	}}
	h := newHarness(t, ci)
	mu.Lock()
	appURL, token = h.env.URL, h.token
	mu.Unlock()
	h.createQueue(1)
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	h.submit(p1)
	h.waitState(p1, "merged")

	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("no CI run started on a test branch")
	}
	for _, s := range seen {
		if s.err != nil || s.status != http.StatusOK {
			t.Errorf("%s: getMergeQueueTestingDetails at the push: status %d, %v", s.branch, s.status, s.err)
			continue
		}
		if s.details.TestBranchSHA != s.sha || s.details.TestBranch != s.branch {
			t.Errorf("%s: testing details at the push name %s at %q; want %s at %s", s.branch,
				s.details.TestBranch, s.details.TestBranchSHA, s.branch, s.sha)
		}
	}
}
