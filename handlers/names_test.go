package handlers

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/palantir/go-githubapp/githubapp"
)

// namesWorld is a handler of each event kind over one fake service and
// fake GitHub, where everyone may write.
type namesWorld struct {
	svc *fakeService
	gh  *fakeGitHub
	h   map[string]githubapp.EventHandler
}

func newNamesWorld() *namesWorld {
	svc, gh := newFakeService(), newFakeGitHub()
	svc.gh = gh
	gh.perms["Codertocat"] = "admin"
	gh.perms["alice"] = "admin"
	cfg := testConfig()
	return &namesWorld{svc: svc, gh: gh, h: map[string]githubapp.EventHandler{
		"pull_request":  NewPullRequestHandler(cfg, svc, svc, gh),
		"push":          NewPushHandler(cfg, svc),
		"status":        NewStatusHandler(cfg, svc),
		"check_run":     NewCheckRunHandler(cfg, svc),
		"issue_comment": NewIssueCommentHandler(cfg, svc, svc, gh),
	}}
}

// untouched fails unless neither the service nor GitHub was called.
func (w *namesWorld) untouched(t *testing.T) {
	t.Helper()
	w.svc.mu.Lock()
	calls, gets := append([]string(nil), w.svc.calls...), w.svc.getQueues
	w.svc.mu.Unlock()
	w.gh.mu.Lock()
	ghCalls := w.gh.permCalls
	w.gh.mu.Unlock()
	w.svc.mu.Lock()
	ghCalls += len(w.svc.notices)
	w.svc.mu.Unlock()
	if len(calls) != 0 || gets != 0 || ghCalls != 0 {
		t.Errorf("service calls %v (+%d queue reads), %d GitHub calls; want none", calls, gets, ghCalls)
	}
}

// namesPayloads are one payload per event kind that the handler would act
// on, edited by edit.
func namesPayloads(t *testing.T, edit func(m map[string]any)) map[string][]byte {
	return map[string][]byte{
		"pull_request": patchJSON(t, loadExample(t, "pull_request/labeled.payload.json"), func(m map[string]any) {
			obj(m, "label")["name"] = "merge-queue"
			obj(m, "sender")["login"] = "alice"
			edit(m)
		}),
		"push":   patchJSON(t, loadExample(t, "push/with-new-branch.payload.json"), edit),
		"status": patchJSON(t, loadExample(t, "status/payload.json"), edit),
		"check_run": patchJSON(t, loadExample(t, "check_run/completed.payload.json"), func(m map[string]any) {
			obj(m, "check_run")["name"] = "ci/test"
			edit(m)
		}),
		"issue_comment": patchJSON(t, prComment(t, "created.payload.json", "alice", "/mq merge"), edit),
	}
}

// TestWebhookRepositoryNamesValidated: an event naming a repository whose
// owner or name breaks the naming rules fails permanently, saying which
// rule, and reaches neither the service nor GitHub.
func TestWebhookRepositoryNamesValidated(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		field, value, want string
	}{
		{"owner", "acme/../evil", "invalid field repo.owner"},
		{"owner", "..", "invalid field repo.owner"},
		{"owner", "acme\u202e", "invalid field repo.owner"},
		{"owner", "a\nb", "invalid field repo.owner"},
		{"name", "../../app/installations", "invalid field repo.name"},
		{"name", "..", `invalid field repo.name: must not be "." or ".."`},
		{"name", "w\x00", "invalid field repo.name"},
		{"name", "w%2F..", "invalid field repo.name"},
	} {
		payloads := namesPayloads(t, func(m map[string]any) {
			r := obj(m, "repository")
			if tt.field == "owner" {
				owner := obj(r, "owner")
				owner["login"], owner["name"] = tt.value, tt.value
			} else {
				r["name"] = tt.value
			}
		})
		for event, payload := range payloads {
			t.Run(event+"/"+tt.field+"/"+url.PathEscape(tt.value), func(t *testing.T) {
				t.Parallel()
				w := newNamesWorld()
				err := w.h[event].Handle(context.Background(), event, "d", payload)
				if !IsPermanent(err) || !strings.Contains(err.Error(), "payload names an invalid repository") ||
					!strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want a permanent error containing %q", err, tt.want)
				}
				if strings.ContainsAny(err.Error(), "\n\x00\u202e") {
					t.Errorf("error %q holds the raw hostile name", err)
				}
				w.untouched(t)
			})
		}
	}
}

// TestWebhookBranchNamesValidated: a push to, or a pull request based on,
// a branch breaking the naming rules is ignored (no queue can target it).
func TestWebhookBranchNamesValidated(t *testing.T) {
	t.Parallel()
	for _, branch := range []string{"a..b", "../../app/installations", "x.lock", "main@{1}", "main\u202e", "feat/\u200b", "@", ""} {
		for _, event := range []string{"pull_request", "push"} {
			t.Run(event+"/"+url.PathEscape(branch), func(t *testing.T) {
				t.Parallel()
				w := newNamesWorld()
				payload := namesPayloads(t, func(m map[string]any) {
					switch pr, isPR := m["pull_request"].(map[string]any); {
					case isPR:
						obj(pr, "base")["ref"] = branch
					case m["ref"] != nil:
						m["ref"] = "refs/heads/" + branch
					}
				})[event]
				if err := w.h[event].Handle(context.Background(), event, "d", payload); err != nil {
					t.Fatalf("err = %v, want the event ignored", err)
				}
				w.untouched(t)
			})
		}
	}
}

// TestWebhookValidNamesStillHandled guards the cases above: the same
// payloads with valid names reach the service.
func TestWebhookValidNamesStillHandled(t *testing.T) {
	t.Parallel()
	for event, payload := range namesPayloads(t, func(map[string]any) {}) {
		if event == "issue_comment" {
			continue // needs a PR on the fake GitHub; covered by its own tests
		}
		t.Run(event, func(t *testing.T) {
			t.Parallel()
			w := newNamesWorld()
			if err := w.h[event].Handle(context.Background(), event, "d", payload); err != nil {
				t.Fatal(err)
			}
			w.svc.mu.Lock()
			defer w.svc.mu.Unlock()
			if len(w.svc.calls) == 0 && w.svc.getQueues == 0 {
				t.Errorf("%s with valid names did not reach the service", event)
			}
		})
	}
}
