package sandbox

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers/inbox"
)

// commentPayload is an issue_comment webhook for a comment on a PR.
func commentPayload(pr int, commentID int64, user, body string) []byte {
	return []byte(fmt.Sprintf(`{"action":"created",
 "issue":{"number":%d,"title":"t","user":{"login":"dev"},"pull_request":{"url":"https://api.github.com/repos/%[5]s/%[6]s/pulls/%[1]d"}},
 "comment":{"id":%d,"body":%q,"user":{"login":%q,"type":"User"}},
 "repository":{"name":%[6]q,"full_name":"%[5]s/%[6]s","owner":{"login":%[5]q}},
 "sender":{"login":%[4]q,"type":"User"},"installation":{"id":1}}`, pr, commentID, body, user, owner, repo))
}

func (h *harness) deliver(id string, payload []byte, signature string) int {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.env.URL+"/api/github/hook", bytes.NewReader(payload))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", id)
	if signature != "" {
		req.Header.Set("X-Hub-Signature-256", signature)
	}
	resp, err := testHTTP.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A webhook with a wrong or missing signature is refused and changes
// nothing; the same delivery id sent twice is processed once.
func TestWebhookSignatureAndDedupe(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.env.Fake.SetCIHold(true)
	h.createQueue(1)
	if err := h.env.Fake.SetPermission(owner, repo, "alice", "write"); err != nil {
		t.Fatal(err)
	}
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	// A real comment to react to, whose own webhook is lost.
	h.env.Fake.SetWebhookURL("http://127.0.0.1:1/unreachable")
	commentID, err := h.env.Fake.Comment(owner, repo, p1, "alice", "/mq merge")
	if err != nil {
		t.Fatal(err)
	}
	h.waitWebhooksIdle()
	h.env.Fake.SetWebhookURL(h.env.URL + "/api/github/hook")
	payload := commentPayload(p1, commentID, "alice", "/mq merge")

	mac := hmac.New(sha256.New, []byte("not the secret"))
	mac.Write(payload)
	for name, sig := range map[string]string{"wrong": "sha256=" + hex.EncodeToString(mac.Sum(nil)), "missing": ""} {
		if got := h.deliver("bad-"+name, payload, sig); got != http.StatusUnauthorized {
			t.Errorf("%s signature: status %d, want 401", name, got)
		}
	}
	if _, ok := h.entry(p1); ok {
		t.Fatalf("an unsigned delivery queued #%d", p1)
	}
	sig := inbox.Sign([]byte(h.env.WebhookSecret()), payload)
	for i := 0; i < 2; i++ {
		if got := h.deliver("same-delivery", payload, sig); got != http.StatusOK {
			t.Fatalf("delivery %d: status %d, want 200", i, got)
		}
	}
	h.waitState(p1, "testing")
	h.waitFor("the inbox to drain", func() bool {
		pending, err := h.env.App().Store().PendingDeliveries(t.Context(), 0)
		return err == nil && len(pending) == 0
	}, nil)
	// GitHub (and the fake) keep one reaction per user and content, so count
	// the bot's calls instead: a second processing would react again.
	if got := h.env.Fake.Calls("POST /repos/{owner}/{repo}/issues/comments/{id}/reactions"); got != 1 {
		t.Errorf("the bot reacted %d times, want once: the duplicate delivery must not be processed", got)
	}
}
