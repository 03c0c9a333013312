package browsertest

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// The extension on a GitHub-like PR page: with the URL and token stored
// from its options page, it offers Submit; submitting (priority high,
// tested alone) puts the PR in the queue, and the panel then shows its
// state, position and expected merge. Cancel takes it out. A queue with
// extensionEnabled false shows nothing, and a refused token says so.
func TestExtensionSubmitsAndShowsState(t *testing.T) {
	ctx := tab(t)
	// The page's host name is what the extension sends as repo.host.
	s := startStack(t, "127.0.0.1")
	s.mustCall("createQueue", map[string]any{"concurrency": 1})

	// One PR merged first, so the queue knows how long CI takes (ETA).
	first := s.openPR("first", "First change", map[string]string{"first.txt": "1\n"})
	s.submit(first, nil)
	s.waitState(first, "merged")
	// Then one PR held in testing ahead of the extension's PR.
	s.env.Fake.SetCIHold(true)
	ahead := s.openPR("ahead", "Change ahead", map[string]string{"ahead.txt": "1\n"})
	s.submit(ahead, nil)
	s.waitState(ahead, "testing")
	pr := s.openPR("widgets-api", "Add the widgets API", map[string]string{"api.txt": "v1\n"})
	pages := startPRPages(t, map[int]prPageData{pr: {Owner: owner, Repo: repo, Title: "Add the widgets API", Base: "main", Head: "widgets-api", Number: pr}})
	pageURL := fmt.Sprintf("%s/%s/%s/pull/%d", pages, owner, repo, pr)

	saveOptions(t, s.env.URL, s.token)
	step(t, ctx, "open the PR page", chromedp.Navigate(pageURL))
	waitPanel(t, "not-submitted", "Not in the merge queue.")
	step(t, ctx, "submit with priority high, tested alone",
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Evaluate[bool](`document.getElementById("mq-ext-priority").value = "high"; true`)(ctx, tg)
			return err
		}),
		chromedp.Click(chromedp.CSS("#mq-ext-nobatch")),
		chromedp.Click(chromedp.CSS("#mq-ext-submit")),
	)
	waitPanel(t, "submitted", "State: queued, position 2 of 2.")
	waitJS(t, ctx, "the expected merge time", `document.getElementById("mq-ext-panel").innerText.includes("Expected merge:")`,
		`document.getElementById("mq-ext-panel").innerText`)
	e, ok := s.entry(pr)
	if !ok || !e.IsCurrentlySubmittedToQueue || e.PriorityName != "high" || !e.NoBatch {
		t.Fatalf("after Submit, #%d's entry is %+v (submitted: %v); want it in the queue, priority high, noBatch", pr, e, ok)
	}
	screenshot(t, ctx, "extension.png", false)

	step(t, ctx, "cancel", chromedp.Click(chromedp.CSS("#mq-ext-cancel")))
	waitPanel(t, "not-submitted", "Last time: cancelled (user_requested).")
	if e, _ := s.entry(pr); e.State != "cancelled" || e.IsCurrentlySubmittedToQueue {
		t.Fatalf("after Cancel, #%d's entry is %+v; want cancelled", pr, e)
	}

	s.mustCall("updateQueue", map[string]any{"extensionEnabled": false})
	step(t, ctx, "reload the PR page", chromedp.Navigate(pageURL))
	waitJS(t, ctx, "the panel to stay hidden (extensionEnabled false)",
		`document.documentElement.dataset.mqExtension === "disabled" && !document.getElementById("mq-ext-panel")`,
		`document.documentElement.dataset.mqExtension || "no state"`)

	s.mustCall("updateQueue", map[string]any{"extensionEnabled": true})
	saveOptions(t, s.env.URL, "mq_not-a-token")
	step(t, ctx, "reload the PR page", chromedp.Navigate(pageURL))
	waitPanel(t, "error", "refused the API token")
}

// saveOptions stores the API URL and token through the options page, as a
// user would.
func saveOptions(t *testing.T, apiURL, token string) {
	t.Helper()
	ctx := tab(t)
	step(t, ctx, "open the extension's options",
		chromedp.Navigate("chrome-extension://"+browser.extID+"/options.html"),
		chromedp.WaitVisible(chromedp.CSS("#apiURL")),
		// Clear what the page loaded from storage, then type.
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Evaluate[bool](`document.getElementById("apiURL").value = ""; document.getElementById("token").value = ""; true`)(ctx, tg)
			return err
		}),
		chromedp.SendKeys(chromedp.CSS("#apiURL"), apiURL+"/v1/"),
		chromedp.SendKeys(chromedp.CSS("#token"), token),
		chromedp.Click(chromedp.CSS("#save")),
	)
	waitJS(t, ctx, "the options to be saved", `document.getElementById("status").innerText.startsWith("Saved.")`,
		`document.getElementById("status").innerText`)
}

// waitPanel waits until the panel is in state what (its
// data-mq-extension) and shows text.
func waitPanel(t *testing.T, what, text string) {
	t.Helper()
	ctx := tab(t)
	waitJS(t, ctx, fmt.Sprintf("the panel to be %s, showing %q", what, text),
		fmt.Sprintf(`document.documentElement.dataset.mqExtension === %q && document.getElementById("mq-ext-panel").innerText.includes(%q)`, what, text),
		`(document.documentElement.dataset.mqExtension || "no state") + ": " + (document.getElementById("mq-ext-panel") || {innerText: "no panel"}).innerText`)
}
