package browsertest

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// cspRecorder is run in every new document: it collects the page's
// Content-Security-Policy violations in window.__mqCSP.
const cspRecorder = `window.__mqCSP = [];
document.addEventListener("securitypolicyviolation", (e) => window.__mqCSP.push(e.violatedDirective + " " + e.blockedURI));`

// The dashboard works under the security headers every response carries:
// its pages load their stylesheet and script with no policy violation, the
// chart legend keeps its colours (now from the stylesheet) and live updates
// run; a script injected inline is refused; and no page can be framed, not
// even by the dashboard itself.
func TestDashboardUnderItsSecurityPolicy(t *testing.T) {
	ctx := tab(t)
	s := startStack(t, "github.com")
	s.mustCall("createQueue", map[string]any{})
	pr := s.openPR("csp", "Check the policy", map[string]string{"csp.txt": "csp\n"})
	s.submit(pr, nil)

	var added page.AddScriptToEvaluateOnNewDocumentResult
	step(t, ctx, "record policy violations in every page", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		res, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspRecorder})
		added = res
		return err
	}))
	t.Cleanup(func() { // the tab is shared with the other tests
		_ = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, page.RemoveScriptToEvaluateOnNewDocument,
				page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: added.Identifier}) //nolint:staticcheck // S1016: the two protocol types match by accident; the literal survives either growing a field
			return err
		}))
	})

	step(t, ctx, "open the dashboard", chromedp.Navigate(s.env.URL+"/"))
	loginIfAsked(t, ctx, s)
	noViolation := `window.__mqCSP && window.__mqCSP.length === 0`
	pages := []struct{ path, styled string }{
		{"/", `getComputedStyle(document.querySelector("header")).backgroundColor === "rgb(36, 41, 47)"`},
		{fmt.Sprintf("/prs/%s/%s/%d", owner, repo, pr), `getComputedStyle(document.body).margin === "0px"`},
		{fmt.Sprintf("/repos/%s/%s/history?branch=main", owner, repo), `getComputedStyle(document.body).margin === "0px"`},
		{fmt.Sprintf("/repos/%s/%s/charts?branch=main", owner, repo),
			`getComputedStyle(document.querySelector(".legend .p50")).color === "rgb(9, 105, 218)"`},
	}
	for _, p := range pages {
		step(t, ctx, "open "+p.path, chromedp.Navigate(s.env.URL+p.path))
		waitJS(t, ctx, p.path+" styled by its stylesheet", p.styled, `document.documentElement.outerHTML.slice(0, 2000)`)
		waitJS(t, ctx, p.path+" without a policy violation", noViolation, `JSON.stringify(window.__mqCSP)`)
	}

	step(t, ctx, "open the dashboard again", chromedp.Navigate(s.env.URL+"/"))
	waitJS(t, ctx, "live.js to refresh the queues (a fetch the policy allows)",
		`!!document.querySelector("[data-fragment][data-etag]")`, `document.body.innerHTML.slice(0, 2000)`)
	evaluate(t, ctx, "inject an inline script", chromedp.Evaluate[bool](`(() => {
  const s = document.createElement("script");
  s.textContent = "window.__mqInjected = true";
  document.body.appendChild(s);
  return true;
})()`))
	waitJS(t, ctx, "the inline script refused by script-src",
		`window.__mqInjected === undefined && window.__mqCSP.some((v) => v.startsWith("script-src"))`, `JSON.stringify(window.__mqCSP)`)

	// A frame of the dashboard, from the dashboard's own origin: with
	// frame-ancestors 'none' the browser shows its error page in its place,
	// of another origin, so there is no document to read.
	evaluate(t, ctx, "frame the dashboard", chromedp.Evaluate[bool](`(() => {
  const f = document.createElement("iframe");
  f.id = "mq-frame";
  f.src = "/";
  document.body.appendChild(f);
  return true;
})()`))
	// Settled: the error page, or a page of the dashboard, loaded.
	waitJS(t, ctx, "the frame to settle", `(() => {
  const d = document.getElementById("mq-frame").contentDocument;
  return d === null || (d.readyState === "complete" && d.URL !== "about:blank");
})()`, `document.body.innerHTML.slice(-500)`)
	framed := evaluate(t, ctx, "look into the frame", chromedp.Evaluate[string](`(() => {
  const d = document.getElementById("mq-frame").contentDocument;
  return d === null ? "" : d.URL;
})()`))
	if framed != "" {
		t.Fatalf("the dashboard was shown in a frame (%s)", framed)
	}
}
