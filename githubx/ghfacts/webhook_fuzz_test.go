package ghfacts

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/textsafe"
)

// Object kinds FuzzWebhookObjects decodes.
const (
	kindPullRequest uint8 = iota
	kindCheckRun
	kindStatus
	kinds
)

// FuzzWebhookObjects decodes any bytes as a webhook's pull_request object,
// check_run object or status payload. Whatever decodes gives sane facts
// (times in UTC, only validated CI URLs, a known state, a merge commit
// only for a merged PR), and whenever go-github decodes the same bytes too,
// the lenient webhook decoding gives exactly the facts the REST path's
// mapping gives: one translation, whichever way an object arrives.
func FuzzWebhookObjects(f *testing.F) {
	// Plain go test runs GitHub's examples whole; fuzzing starts from them
	// cut down to the members the mappings read, since minimizing a 20 kB
	// input takes longer than fuzzing it.
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	for dir, kind := range map[string]uint8{"pull_request": kindPullRequest, "check_run": kindCheckRun, "status": kindStatus} {
		files, err := filepath.Glob(filepath.Join("../../handlers/testdata/github-webhook-examples", dir, "*.json"))
		if err != nil || len(files) == 0 {
			f.Fatalf("no %s examples: %v", dir, err)
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			var payload map[string]json.RawMessage
			if err := json.Unmarshal(b, &payload); err != nil {
				f.Fatal(err)
			}
			switch kind {
			case kindPullRequest:
				b = payload["pull_request"]
			case kindCheckRun:
				b = payload["check_run"]
			}
			if fuzzing {
				b = readMembers(f, b)
			}
			f.Add(kind, b)
		}
	}
	f.Add(kindPullRequest, []byte(`{"number":1,"state":"closed","merged":true,"merge_commit_sha":"abc","updated_at":1557933655123}`))
	f.Add(kindCheckRun, []byte(`{"name":"x","head_sha":"s","status":"completed","completed_at":"2018-04-25 20:42:10","html_url":"javascript:x","details_url":"https://ci/x"}`))
	f.Add(kindStatus, []byte(`{"sha":"s","state":"error","context":"c","target_url":"https://ci/(x)","created_at":"2019-05-15T15:20:55+02:00"}`))
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		switch kind % kinds {
		case kindPullRequest:
			var w WebhookPullRequest
			if json.Unmarshal(data, &w) != nil {
				return
			}
			got := w.Facts()
			utcOrZero(t, "ReadAt", got.ReadAt)
			if got.MergeCommitSHA != "" && !got.Merged {
				t.Errorf("merge commit %q of a PR that is not merged", got.MergeCommitSHA)
			}
			var g github.PullRequest
			if json.Unmarshal(data, &g) == nil {
				if want := PullRequest(&g); !reflect.DeepEqual(got, want) {
					t.Errorf("webhook facts %+v\nREST facts    %+v", got, want)
				}
			}
		case kindCheckRun:
			var w WebhookCheckRun
			if json.Unmarshal(data, &w) != nil {
				return
			}
			got := w.Facts()
			saneCheck(t, got, queue.KindCheckRun)
			var g github.CheckRun
			if json.Unmarshal(data, &g) == nil {
				if want := CheckRun(&g); !reflect.DeepEqual(got, want) {
					t.Errorf("webhook result %+v\nREST result    %+v", got, want)
				}
			}
		case kindStatus:
			var w WebhookStatus
			if json.Unmarshal(data, &w) != nil {
				return
			}
			got := w.Facts()
			saneCheck(t, got, queue.KindStatus)
			var g github.RepoStatus
			if json.Unmarshal(data, &g) == nil {
				if want := Status(w.SHA, &g); !reflect.DeepEqual(got, want) {
					t.Errorf("webhook result %+v\nREST result    %+v", got, want)
				}
			}
		}
	})
}

// readMembers keeps of an object only the members some mapping reads.
func readMembers(t testing.TB, object []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(object, &m); err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{}
	for _, k := range []string{"number", "title", "body", "state", "draft", "merged", "merge_commit_sha", "mergeable",
		"mergeable_state", "user", "head", "base", "updated_at", "name", "head_sha", "status", "conclusion", "html_url",
		"details_url", "started_at", "completed_at", "sha", "context", "target_url", "created_at"} {
		read[k] = true
	}
	for k := range m {
		if !read[k] {
			delete(m, k)
		}
	}
	for _, k := range []string{"user", "head", "base"} {
		if v, ok := m[k]; ok {
			var sub map[string]any
			if json.Unmarshal(v, &sub) == nil && sub != nil {
				kept := map[string]any{}
				for _, sk := range []string{"login", "ref", "sha"} {
					if x, ok := sub[sk]; ok {
						kept[sk] = x
					}
				}
				if repo, ok := sub["repo"].(map[string]any); ok {
					kept["repo"] = map[string]any{"full_name": repo["full_name"]}
				}
				m[k], _ = json.Marshal(kept)
			}
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func utcOrZero(t *testing.T, what string, at time.Time) {
	t.Helper()
	if !at.IsZero() && at.Location() != time.UTC {
		t.Errorf("%s %v is not in UTC", what, at)
	}
}

func saneCheck(t *testing.T, c queue.CheckResult, kind queue.CheckKind) {
	t.Helper()
	utcOrZero(t, "UpdatedAt", c.UpdatedAt)
	if c.Kind != kind {
		t.Errorf("kind %q, want %q", c.Kind, kind)
	}
	switch c.State {
	case queue.CheckPending, queue.CheckSuccess, queue.CheckFailure:
	default:
		t.Errorf("state %q", c.State)
	}
	if c.URL != "" && textsafe.CIURL(c.URL) != c.URL {
		t.Errorf("URL %q is not a validated CI URL", c.URL)
	}
}
