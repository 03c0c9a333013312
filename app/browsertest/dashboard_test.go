package browsertest

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// The dashboard shows a batch in testing (each of its PRs, as testing) and
// a PR that failed, with its reason: what a person looking at the queue
// needs, asserted on the text the browser renders.
func TestDashboardShowsTestingBatchAndFailure(t *testing.T) {
	ctx := tab(t)
	s := startStack(t, "github.com")
	s.mustCall("createQueue", map[string]any{"concurrency": 1, "batch": true, "batchingMinSize": 2, "batchingMaxWaitTimeMinutes": 0})

	// A PR that breaks CI, tested alone: it fails with tests_failed.
	bad := s.openPR("bad", "Break the build", map[string]string{"FAIL": "boom\n"})
	s.submit(bad, map[string]any{"noBatch": true})
	s.waitEntry(bad, "to fail with tests_failed", func(e entry) bool { return e.State == "failed" && e.StateReason == "tests_failed" })

	// Two PRs batched into one run, held in testing by the CI. The queue is
	// paused while they are submitted, so the batch forms with both.
	s.env.Fake.SetCIHold(true)
	s.mustCall("updateQueue", map[string]any{"state": "paused"})
	p1 := s.openPR("docs", "Document widgets", map[string]string{"docs.txt": "widgets\n"})
	p2 := s.openPR("speed", "Faster widgets", map[string]string{"speed.txt": "fast\n"})
	s.submit(p1, nil)
	s.submit(p2, nil)
	s.mustCall("updateQueue", map[string]any{"state": "running"})
	e1 := s.waitState(p1, "testing")
	e2 := s.waitState(p2, "testing")
	if e1.TestRunID == "" || e1.TestRunID != e2.TestRunID {
		t.Fatalf("#%d and #%d are not tested in one batch: runs %q and %q", p1, p2, e1.TestRunID, e2.TestRunID)
	}

	step(t, ctx, "open the dashboard", chromedp.Navigate(s.env.URL+"/"))
	loginIfAsked(t, ctx, s)
	for _, pr := range []int{p1, p2} {
		waitJS(t, ctx, fmt.Sprintf("#%d shown as testing", pr), rowWith(prRef(pr), "testing"), `document.body.innerText`)
	}
	waitJS(t, ctx, fmt.Sprintf("#%d shown as failed with its reason", bad), rowWith(prRef(bad), "failed", "tests_failed"), `document.body.innerText`)
	screenshot(t, ctx, "dashboard.png", true)
}

// rowWith is a JavaScript condition: some visible element no larger than a
// table row (a row, a list item, a card) holds every one of texts, case
// ignored. It ties a PR number to its state on the page without depending
// on the dashboard's markup.
func rowWith(texts ...string) string {
	list := "["
	for i, s := range texts {
		if i > 0 {
			list += ","
		}
		list += strconv.Quote(s)
	}
	list += "]"
	return `(() => {
  const want = ` + list + `.map((s) => s.toLowerCase());
  const holds = (t) => want.every((w) => t.includes(w));
  for (const el of document.querySelectorAll("tr, li, article, section, div, p")) {
    const t = (el.innerText || "").toLowerCase();
    if (t.length <= 400 && holds(t) && el.getClientRects().length > 0) return true;
  }
  return false;
})()`
}

// loginIfAsked signs in with the stack's API token when the dashboard asks
// for one (a page with a password field); a public dashboard asks nothing.
func loginIfAsked(t *testing.T, ctx context.Context, s *stack) {
	t.Helper()
	asked := evaluate(t, ctx, "look for a login form", chromedp.Evaluate[bool](`!!document.querySelector("input[type=password]")`))
	if !asked {
		return
	}
	step(t, ctx, "sign in with the API token",
		chromedp.SendKeys(chromedp.CSS("input[type=password]"), s.token),
		chromedp.Submit(chromedp.CSS("input[type=password]")),
	)
	waitJS(t, ctx, "the dashboard after signing in", `!document.querySelector("input[type=password]")`, `document.body.innerText`)
}
