package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/githubx/fakegithub"
)

// recorder is a notification endpoint keeping every JSON body it gets.
type recorder struct {
	mu     sync.Mutex
	bodies []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.bodies = append(r.bodies, string(body))
	r.mu.Unlock()
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string{}, r.bodies...)
}

// Hostile text a fork PR's author controls: its title, and the target_url
// and description of the status its CI posts on the test branch.
const (
	hostileTitle       = "fix @org/team [click](http://evil) ![x](http://evil/x.png) <!channel> <img src=x>"
	hostileDescription = "@org/team <!channel> [click](http://evil)"
)

var hostileTargetURLs = []string{"javascript:alert(1)", "<!channel>", "](http://evil)", "![x](http://evil/x.png)"}

// rawOnGitHub matches what must not appear raw in markdown the bot writes
// on GitHub from that text (escaped forms carry a backslash or an entity).
var rawOnGitHub = regexp.MustCompile(`@org|\]\(http://evil|\[click\]|!\[x\]|<!channel>|(^|[^\\])<img|javascript:|\(!\[`)

// rawOnSlack matches what must not appear raw in the Slack line.
var rawOnSlack = regexp.MustCompile(`<|>|@org|javascript:|\]\(http://evil`)

// A status whose target_url is javascript:, <!channel> or markdown, and
// whose description mentions a team, fails four PRs whose titles are
// hostile markdown: every surface the bot writes shows that text inert or
// not at all — the sticky comment, the failure comment, the check run,
// the test PR's body, the Slack line, the webhook payload (whose
// details_url stays the dashboard's) and the testing-details API.
func TestUntrustedCITextIsInertOnEverySurface(t *testing.T) {
	t.Parallel()
	slack, hook := &recorder{}, &recorder{}
	slackSrv, hookSrv := httptest.NewServer(slack), httptest.NewServer(hook)
	defer slackSrv.Close()
	defer hookSrv.Close()
	h := newHarnessWith(t, Options{Notifications: []app.NotificationTarget{
		{URL: slackSrv.URL, Kind: app.NotifySlack}, {URL: hookSrv.URL, Kind: app.NotifyWebhook}}})
	h.createQueue(1)
	h.mustPost("updateQueue", map[string]any{"repo": repoBody(), "targetBranch": "main", "createPrsForTestingBranches": true})
	h.env.Fake.SetCIHold(true)
	gh := github.NewClient(testHTTP).WithAuthToken(h.env.Fake.IssueToken())
	gh.BaseURL, _ = url.Parse(h.env.Fake.URL() + "/")

	// One PR at a time, so each run's commit is the one its status lands on.
	prs := map[int]string{} // PR → the target_url its run failed with
	runs := map[int]string{}
	for i, target := range hostileTargetURLs {
		branch := fmt.Sprintf("hostile-%d", i)
		if _, err := h.env.Fake.Commit(owner, repo, branch, map[string]string{branch + ".txt": "x\n"}, "change"); err != nil {
			t.Fatal(err)
		}
		n, err := h.env.Fake.OpenPR(owner, repo, fakegithub.PROptions{Head: branch, Base: "main", Title: hostileTitle, Author: "dev"})
		if err != nil {
			t.Fatal(err)
		}
		prs[n] = target
		h.submit(n)
		h.waitState(n, "testing")
		runs[n] = h.entryRun(n)
		sha, err := h.env.Fake.BranchSHA(owner, repo, h.testBranch(n))
		if err != nil {
			t.Fatal(err)
		}
		h.waitFor(fmt.Sprintf("#%d's draft test PR", n), func() bool { return len(h.testPRs()) == i+1 }, nil)
		if _, _, err := gh.Repositories.CreateStatus(context.Background(), owner, repo, sha, &github.RepoStatus{
			State: github.String("failure"), Context: github.String("ci/test"),
			TargetURL: github.String(target), Description: github.String(hostileDescription)}); err != nil {
			t.Fatal(err)
		}
		h.waitState(n, "failed")
	}

	check := func(surface, text string, raw *regexp.Regexp) {
		t.Helper()
		if loc := raw.FindStringIndex(text); loc != nil {
			t.Errorf("%s holds %q raw:\n%s", surface, text[loc[0]:loc[1]], text)
		}
	}
	for n := range prs {
		// The failure comment mentions the author, written after the state
		// change (no sticky comment: the PR failed without waiting for
		// anything to be explained first).
		h.waitFor(fmt.Sprintf("#%d's failure comment", n), func() bool {
			for _, c := range h.env.Fake.Comments(owner, repo, n) {
				if strings.HasPrefix(c.GetBody(), "@dev this pull request failed") {
					return true
				}
			}
			return false
		}, nil)
		for _, c := range h.env.Fake.Comments(owner, repo, n) {
			check(fmt.Sprintf("comment on #%d", n), c.GetBody(), rawOnGitHub)
		}
		pr, err := h.env.Fake.PR(owner, repo, n)
		if err != nil {
			t.Fatal(err)
		}
		h.waitFor(fmt.Sprintf("#%d's check run to fail", n), func() bool {
			runs := h.env.Fake.CheckRunsNamed(owner, repo, pr.GetHead().GetSHA(), "Merge Queue (main)")
			return len(runs) > 0 && runs[len(runs)-1].GetConclusion() == "failure"
		}, nil)
		for _, cr := range h.env.Fake.CheckRunsNamed(owner, repo, pr.GetHead().GetSHA(), "Merge Queue (main)") {
			out := cr.GetOutput()
			check(fmt.Sprintf("check run of #%d", n), out.GetTitle()+"\n"+out.GetSummary()+"\n"+out.GetText(), rawOnGitHub)
		}
		_, details := h.post("getMergeQueueTestingDetails", map[string]any{"repo": repoBody(), "targetBranch": "main", "testRunId": runs[n]})
		var d struct {
			StatusChecks []struct{ Context, URL string } `json:"statusChecks"`
		}
		if err := json.Unmarshal(details, &d); err != nil {
			t.Fatal(err)
		}
		for _, s := range d.StatusChecks {
			if s.URL != "" && !strings.HasPrefix(s.URL, h.env.Fake.URL()) {
				t.Errorf("testing details of #%d show status %s with URL %q, want the hostile URL dropped", n, s.Context, s.URL)
			}
		}
	}
	for _, pr := range h.testPRs() {
		if !strings.Contains(pr.GetBody(), "fix @&#8203;org/team") {
			t.Errorf("test PR #%d body does not show the title escaped:\n%s", pr.GetNumber(), pr.GetBody())
		}
		check(fmt.Sprintf("test PR #%d body", pr.GetNumber()), pr.GetBody(), rawOnGitHub)
	}

	failed := func(bodies []string) int {
		k := 0
		for _, b := range bodies {
			if strings.Contains(b, "failed") {
				k++
			}
		}
		return k
	}
	h.waitFor("the failures on Slack and the webhook", func() bool {
		return failed(slack.all()) >= len(prs) && failed(hook.all()) >= len(prs)
	}, func() string { return fmt.Sprintf("slack %q, webhook %d bodies", slack.all(), len(hook.all())) })
	for _, body := range slack.all() {
		var m struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		check("Slack line", m.Text, rawOnSlack)
	}
	for _, body := range hook.all() {
		var m map[string]any
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		if m["details_url"] != h.env.URL+"/" {
			t.Errorf("webhook details_url %v, want the dashboard's %s/", m["details_url"], h.env.URL)
		}
		detail, _ := m["detail"].(string)
		check("webhook detail", detail, regexp.MustCompile(`javascript:|<!channel>|\]\(http://evil|@org`))
		if strings.ContainsAny(body, "<>") {
			t.Errorf("webhook body holds a raw < or >: %s", body)
		}
	}
}
