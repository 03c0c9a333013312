package sandbox

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/githubx/fakegithub"
)

// get fetches path from the app with the given headers (name, value pairs).
func (h *harness) get(path string, header ...string) (int, string) {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.env.URL+path, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{Timeout: requestTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return res.StatusCode, string(body)
}

// On the sandbox (public dashboard), a batch under test shows with its
// PRs, its test branch and its required check, each linked on the fake
// GitHub; the live fragment follows the batch to its merge; a failed PR
// shows with its reason.
func TestDashboardOnTheSandbox(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, Options{})
	h.createQueue(1)
	h.mustPost("updateQueue", map[string]any{"repo": repoBody(), "targetBranch": "main",
		"batch": true, "batchingMinSize": 2, "batchingMaxSize": 2})
	h.env.Fake.SetCIHold(true)
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	p2 := h.openPR("two", map[string]string{"two.txt": "2\n"})
	h.submit(p1)
	h.submit(p2)
	h.waitState(p1, "testing")
	h.waitState(p2, "testing")
	gh := h.env.Fake.URL()
	h.waitFor("the batch on the dashboard with its pending check", func() bool {
		_, page := h.get("/")
		return strings.Contains(page, "Batch of 2") && strings.Contains(page, ">ci/test</a></td><td class=\"check-pending\">")
	}, func() string { _, page := h.get("/"); return page })
	status, page := h.get("/")
	for _, want := range []string{
		fmt.Sprintf(`<a href="%s/%s/%s/pull/%d">#%d</a>`, gh, owner, repo, p1, p1),
		fmt.Sprintf(`<a href="%s/%s/%s/pull/%d">#%d</a>`, gh, owner, repo, p2, p2),
		fmt.Sprintf(`Test branch: <a href="%s/%s/%s/tree/`, gh, owner, repo),
		`<a href="` + gh + `/ci/runs/`,
	} {
		if status != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("dashboard (%d) lacks %q:\n%s", status, want, page)
		}
	}

	h.env.Fake.ReleaseCI()
	h.waitState(p1, "merged")
	h.waitFor("the fragment to show the merge", func() bool {
		_, frag := h.get("/fragments/queues")
		return !strings.Contains(frag, "Batch of 2") && strings.Contains(frag, "merged_by_queue")
	}, func() string { _, frag := h.get("/fragments/queues"); return frag })

	h.env.Fake.SetCIHold(false)
	bad := h.openPR("bad", map[string]string{"FAIL": "x\n"})
	h.mustPost("updateQueue", map[string]any{"repo": repoBody(), "targetBranch": "main", "batch": false})
	h.submit(bad)
	h.waitState(bad, "failed")
	_, pr := h.get(fmt.Sprintf("/prs/%s/%s/%d", owner, repo, bad))
	if !strings.Contains(pr, "<b>failed</b> (tests_failed)") {
		t.Errorf("the failed PR's page lacks its reason:\n%s", pr)
	}
}

// A sandbox started with access token guards its dashboard like a
// deployment: no token, no page; the harness's API token opens it.
func TestDashboardTokenOnTheSandbox(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, Options{DashboardAccess: app.DashboardToken, CI: fakegithub.CIOptions{}})
	h.createQueue(1)
	if status, _ := h.get("/"); status != http.StatusSeeOther {
		t.Errorf("dashboard without a token: %d", status)
	}
	if status, page := h.get("/", "x-api-token", h.token); status != http.StatusOK || !strings.Contains(page, owner+"/"+repo) {
		t.Errorf("dashboard with a token: %d\n%s", status, page)
	}
}
