package browsertest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/app/sandbox"
	"github.com/mergequeue/mq/handlers/api/apitoken"
)

// In a real browser, a dashboard with access token signs in through its
// form (the cross-origin check lets the dashboard's own form through) and
// signs out with its button, which ends the session on the server: the
// cookie the browser held, replayed, no longer opens the dashboard.
func TestDashboardSignInAndOut(t *testing.T) {
	ctx := tab(t)
	env, err := sandbox.Start(context.Background(), sandbox.Options{Dir: t.TempDir(), DashboardAccess: app.DashboardToken})
	if err != nil {
		t.Fatalf("failed to start the sandbox: %v", err)
	}
	t.Cleanup(env.Close)
	secret, _, err := apitoken.Issue(context.Background(), env.App().Store(), "reader", nil, nil, 0, time.Now(), apitoken.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}

	step(t, ctx, "open the dashboard", chromedp.Navigate(env.URL+"/"))
	waitJS(t, ctx, "the sign-in form", `!!document.querySelector("input[type=password]")`, `document.body.innerText`)
	step(t, ctx, "sign in with the token",
		chromedp.SendKeys(chromedp.CSS("input[type=password]"), secret),
		chromedp.Submit(chromedp.CSS("input[type=password]")),
	)
	waitJS(t, ctx, "the dashboard, signed in", `document.body.innerText.includes("token reader")`, `document.body.innerText`)

	cookies, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{env.URL + "/"}})
	if err != nil {
		t.Fatalf("failed to read the browser's cookies: %v", err)
	}
	var session *network.Cookie
	for _, c := range cookies.Cookies {
		if c.Name == "mq_session" {
			session = c
		}
	}
	if session == nil || !session.HTTPOnly || session.Value == secret {
		t.Fatalf("session cookie %+v: want an HttpOnly random id", session)
	}
	opens := func() bool {
		req, _ := http.NewRequest(http.MethodGet, env.URL+"/", nil)
		req.AddCookie(&http.Cookie{Name: session.Name, Value: session.Value})
		res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	}
	if !opens() {
		t.Fatal("the browser's session cookie does not open the dashboard")
	}

	step(t, ctx, "sign out", chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)))
	waitJS(t, ctx, "the sign-in form after signing out", `!!document.querySelector("input[type=password]")`, `document.body.innerText`)
	if opens() {
		t.Error("the session cookie still opens the dashboard after signing out")
	}
}
