package sandbox

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/handlers/inbox"
)

// No secret ever reaches the log, at debug level, while the app refuses a
// webhook signed with the wrong key (the real secret configured), serves
// API calls with valid and invalid tokens, works on GitHub with
// installation tokens, merges a PR and fails to notify a Slack target and
// a webhook target whose URLs carry secrets.
func TestNoSecretInTheLog(t *testing.T) {
	t.Parallel()
	const (
		slackSecret = "T0SLACK0B0SLACK0SECRETXX"
		querySecret = "QUERYSECRET0XXXX"
		signSecret  = "SIGNINGSECRET0XXXX"
		badToken    = "mq_notarealtokenbutsecretanyway"
	)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer failing.Close()
	h, logs := newLoggedHarness(t, Options{Notifications: []app.NotificationTarget{
		{URL: failing.URL + "/services/T0/B0/" + slackSecret, Kind: app.NotifySlack},
		{URL: "http://127.0.0.1:1/hook?token=" + querySecret, Secret: signSecret, Kind: app.NotifyWebhook},
	}})

	// A webhook signed with another key.
	body := []byte(`{"zen":"Secrets stay secret.","hook_id":1}`)
	if got := h.rawPost("/api/github/hook", hookHeader("ping", "wrong-key", inbox.Sign([]byte("not the secret"), body)),
		body, len(body), 1); got.status != http.StatusUnauthorized {
		t.Fatalf("wrong signature: got %+v, want 401", got)
	}
	// API calls with an unknown token, on an unknown operation, with the
	// wrong method; then real work with the real token.
	for _, c := range []struct{ method, op, token string }{
		{http.MethodPost, "getQueue", badToken},
		{http.MethodPost, "noSuchOperation", h.token},
		{http.MethodGet, "createQueue", h.token},
	} {
		req, err := http.NewRequest(c.method, h.env.URL+"/v1/"+c.op, bytes.NewReader([]byte(`{}`)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("x-api-token", c.token)
		resp, err := testHTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("%s %s: status %d, want a refusal", c.method, c.op, resp.StatusCode)
		}
	}
	h.createQueue(1)
	pr := h.openPR("secret", map[string]string{"secret.txt": "1\n"})
	h.submit(pr)
	h.waitState(pr, "merged")
	// Both targets have failed, and said so.
	h.waitFor("both notification targets to log a failure", func() bool {
		slack, hook := false, false
		for _, l := range logs.lines(t, "notification delivery") {
			target, _ := l["notify"].(string)
			slack = slack || strings.HasPrefix(target, failing.URL)
			hook = hook || strings.HasPrefix(target, "http://127.0.0.1:1")
		}
		return slack && hook
	}, logs.String)
	if len(logs.lines(t, "webhook refused")) == 0 {
		t.Fatalf("the refused webhook was not logged:\n%s", logs.String())
	}

	key := strings.Split(strings.TrimSpace(string(h.env.Fake.AppPrivateKeyPEM())), "\n")
	secrets := map[string]string{
		"webhook secret":              h.env.WebhookSecret(),
		"API token":                   h.token,
		"unknown API token":           badToken,
		"Slack URL path":              slackSecret,
		"webhook target query":        querySecret,
		"webhook target signing key":  signSecret,
		"installation token (ghs_…)":  "ghs_",
		"App JWT":                     "eyJhbGci",
		"private key (a line of PEM)": key[len(key)/2],
	}
	log := logs.String()
	for what, s := range secrets {
		if strings.Contains(log, s) {
			t.Errorf("the %s is in the log", what)
		}
	}
	if t.Failed() {
		t.Log(log)
	}
}
