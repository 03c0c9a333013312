package browsertest

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The options page refuses a plain http:// merge queue URL on another
// host, where the API token would travel in clear: the status line says
// why (in red) and nothing is stored. http:// to this machine stays
// allowed (saveOptions uses http://127.0.0.1 in the other tests).
func TestExtensionOptionsRefusePlainHTTP(t *testing.T) {
	ctx := tab(t)
	for _, url := range []string{"http://mq.example.com", "http://192.0.2.7:8080/v1/"} {
		step(t, ctx, "open the extension's options",
			chromedp.Navigate("chrome-extension://"+browser.extID+"/options.html"),
			chromedp.WaitVisible(chromedp.CSS("#apiURL")))
		waitJS(t, ctx, "the saved options to be loaded", `document.documentElement.dataset.optionsLoaded === "true"`,
			`document.getElementById("status").innerText`)
		step(t, ctx, "type a plain http:// address and save",
			chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := chromedp.Evaluate[bool](`document.getElementById("apiURL").value = ""; document.getElementById("token").value = ""; true`)(ctx, tg)
				return err
			}),
			chromedp.SendKeys(chromedp.CSS("#apiURL"), url),
			chromedp.SendKeys(chromedp.CSS("#token"), "mq_plain-http-test"),
			chromedp.Click(chromedp.CSS("#save")),
		)
		waitJS(t, ctx, "the options page to refuse "+url,
			`document.getElementById("status").className === "error" && document.getElementById("status").innerText.includes("must start with https://")`,
			`document.getElementById("status").className + ": " + document.getElementById("status").innerText`)
		status := evaluate(t, ctx, "read the status line", chromedp.Evaluate[string](`document.getElementById("status").innerText`))
		if !strings.Contains(status, "in clear") || !strings.Contains(status, "127.0.0.1") {
			t.Errorf("status for %s = %q, want it to say the token would travel in clear and that loopback is allowed", url, status)
		}
		stored := evaluate(t, ctx, "read the stored options", chromedp.Evaluate[string](
			`chrome.storage.local.get(["apiURL", "token"]).then(s => (s.apiURL || "") + " " + (s.token || ""))`, chromedp.EvalAwaitPromise))
		if strings.Contains(stored, "mq.example.com") || strings.Contains(stored, "192.0.2.7") || strings.Contains(stored, "mq_plain-http-test") {
			t.Errorf("after the refusal the extension stores %q", stored)
		}
	}
}

// An http:// address stored by an older version of the extension is not
// used: the background script answers the panel with the reason instead
// of sending the token there.
func TestExtensionBackgroundRefusesStoredPlainHTTP(t *testing.T) {
	ctx := tab(t)
	step(t, ctx, "open the extension's options", chromedp.Navigate("chrome-extension://"+browser.extID+"/options.html"),
		chromedp.WaitVisible(chromedp.CSS("#apiURL")))
	saved := evaluate(t, ctx, "store the options an older version accepted", chromedp.Evaluate[string](
		`chrome.storage.local.get(null).then(old => chrome.storage.local.set({apiURL: "http://mq.example.com", token: "mq_old"}).then(() => JSON.stringify(old)))`,
		chromedp.EvalAwaitPromise))
	defer evaluate(t, ctx, "restore the options", chromedp.Evaluate[bool](
		`chrome.storage.local.clear().then(() => chrome.storage.local.set(`+saved+`)).then(() => true)`, chromedp.EvalAwaitPromise))
	answer := evaluate(t, ctx, "ask the background script for a PR's state", chromedp.Evaluate[string](
		`chrome.runtime.sendMessage({op: "status", pr: {host: "github.com", owner: "acme", repo: "widgets", number: 1, base: "main"}}).then(r => JSON.stringify(r))`,
		chromedp.EvalAwaitPromise))
	if !strings.Contains(answer, "in clear") || !strings.Contains(answer, "options") {
		t.Errorf("the background script answered %s; want an error saying the token would travel in clear", answer)
	}
}
