package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/settingdecl"
)

// The API and the declaration of the settings (queue/settingdecl) agree:
// getQueue shows every declared setting, in order, of its declared type,
// with its declared default; each one written through createQueue or
// updateQueue reads back exactly; docs/api.md shows the same fields.

// branchBody is a request for the queue of branch with fields.
func branchBody(t *testing.T, branch string, fields map[string]any) string {
	t.Helper()
	m := map[string]any{"repo": map[string]string{"host": "github.com", "owner": "octo", "name": "widgets"}, "targetBranch": branch}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rawFields decodes a JSON object into its members' raw values and keys in
// order.
func rawFields(t *testing.T, r response) (map[string]json.RawMessage, []string) {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatal(err)
	}
	return m, objectKeys(t, []byte(r.body))
}

// objectKeys are the keys of the JSON object b, in order.
func objectKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	var keys []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// declaredKeys are the keys getQueue shows: state, branch, every declared
// setting, then enqueuedPullRequests.
func declaredKeys() []string {
	keys := []string{"state", "branch"}
	for _, s := range settingdecl.All {
		keys = append(keys, s.API)
	}
	return append(keys, "enqueuedPullRequests", "autoTuning")
}

// shownDefault is the JSON getQueue shows for a new queue's setting: its
// declared Shown method on the default settings (as stored at creation),
// else its declared default, else the zero value of its kind.
func shownDefault(t *testing.T, s settingdecl.Setting) string {
	t.Helper()
	settings := queue.DefaultSettings().WithCreationDefaults()
	var v any
	switch {
	case strings.HasPrefix(s.Shown, "Queue."):
		q := &queue.Queue{Settings: settings}
		v = reflect.ValueOf(q).MethodByName(strings.TrimPrefix(s.Shown, "Queue.")).Call(nil)[0].Interface()
	case s.Shown != "":
		v = reflect.ValueOf(settings).MethodByName(s.Shown).Call(nil)[0].Interface()
	case s.Default != nil:
		v = s.Default
	default:
		v = map[settingdecl.Kind]any{settingdecl.Int: 0, settingdecl.Bool: false, settingdecl.String: "",
			settingdecl.List: []string{}, settingdecl.NullableList: nil, settingdecl.EmptyList: []string{}}[s.Kind]
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonOf is v as JSON.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// written is the value a test writes for s: its example (enums in upper
// case, which the API accepts), or [] for a field accepted only empty.
func written(s settingdecl.Setting) any {
	if s.Kind == settingdecl.EmptyList {
		return []any{}
	}
	if s.Kind == settingdecl.Enum {
		return strings.ToUpper(s.Example.(string))
	}
	return s.Example
}

func TestGetQueueShowsEveryDeclaredSetting(t *testing.T) {
	t.Parallel()
	h := newLiveHarness(t)
	wantEmptyObject(t, h.post("createQueue", branchBody(t, "main", nil)))
	got, keys := rawFields(t, h.post("getQueue", branchBody(t, "main", nil)))
	if want := declaredKeys(); !reflect.DeepEqual(keys, want) {
		t.Errorf("getQueue's keys:\n %v\nthe declaration's:\n %v", keys, want)
	}
	for _, s := range settingdecl.All {
		raw := string(got[s.API])
		if want := shownDefault(t, s); raw != want {
			t.Errorf("%s of a new queue is %s, want %s (the declared default)", s.API, raw, want)
		}
		var v any
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if typ := jsonType(v); typ != s.JSONType() && !(typ == "null" && s.Kind == settingdecl.NullableList) {
			t.Errorf("%s is a JSON %s (%s), declared %s", s.API, typ, raw, s.JSONType())
		}
	}
}

// Every declared setting written on its own reads back exactly, through
// createQueue and through updateQueue, whose answer shows it too; its
// unset value and a value past its bound are refused naming it, changing
// nothing; a list's delete field resets it to null.
func TestEveryDeclaredSettingRoundTrips(t *testing.T) {
	t.Parallel()
	for _, s := range settingdecl.All {
		t.Run(s.API, func(t *testing.T) {
			t.Parallel()
			h := newLiveHarness(t)
			want := jsonOf(t, s.Example)
			if s.Kind == settingdecl.EmptyList {
				want = "[]"
			}
			field := map[string]any{s.API: written(s)}
			for k, v := range s.ExampleWith {
				field[k] = v
			}

			wantEmptyObject(t, h.post("createQueue", branchBody(t, "created", field)))
			got, _ := rawFields(t, h.post("getQueue", branchBody(t, "created", nil)))
			if string(got[s.API]) != want {
				t.Errorf("created with %s %s: getQueue shows %s, want %s", s.API, jsonOf(t, written(s)), got[s.API], want)
			}

			wantEmptyObject(t, h.post("createQueue", branchBody(t, "updated", nil)))
			answer, _ := rawFields(t, h.post("updateQueue", branchBody(t, "updated", field)))
			got, _ = rawFields(t, h.post("getQueue", branchBody(t, "updated", nil)))
			if string(answer[s.API]) != want || string(got[s.API]) != want {
				t.Errorf("updated to %s: updateQueue answers %s, getQueue shows %s, want %s", jsonOf(t, written(s)), answer[s.API], got[s.API], want)
			}

			before := h.post("getQueue", branchBody(t, "updated", nil)).body
			var refused []any
			switch {
			case s.Kind == settingdecl.Int:
				refused = append(refused, s.Max+1)
				if s.Unset {
					refused = append(refused, 0)
				}
			case s.Unset && s.Kind == settingdecl.String, s.Kind == settingdecl.Enum:
				refused = append(refused, "")
			case s.Kind == settingdecl.EmptyList:
				refused = append(refused, []any{map[string]any{}})
			}
			for _, v := range refused {
				wantError(t, h.post("updateQueue", branchBody(t, "updated", map[string]any{s.API: v})), 400, s.API)
				wantError(t, h.post("createQueue", branchBody(t, "refused", map[string]any{s.API: v})), 400, s.API)
			}
			if after := h.post("getQueue", branchBody(t, "updated", nil)).body; after != before {
				t.Errorf("a refused update changed the queue:\n%s\n%s", before, after)
			}
			if r := h.post("getQueue", branchBody(t, "refused", nil)); r.status != 404 {
				t.Errorf("a refused createQueue created the queue: %d %s", r.status, r.body)
			}

			if s.Delete != "" {
				answer, _ := rawFields(t, h.post("updateQueue", branchBody(t, "updated", map[string]any{s.Delete: true})))
				if string(answer[s.API]) != "null" {
					t.Errorf("%s: true left %s = %s, want null", s.Delete, s.API, answer[s.API])
				}
			}
		})
	}
}

// docs/api.md's getQueue example shows the fields getQueue answers, in
// order, and its settings table lists every field a request may set.
func TestDocsShowTheAPIFields(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	section := text[strings.Index(text, "### getQueue"):]
	start := strings.Index(section, "```json\n") + len("```json\n")
	example := section[start : start+strings.Index(section[start:], "```")]
	h := newLiveHarness(t)
	wantEmptyObject(t, h.post("createQueue", branchBody(t, "main", nil)))
	_, keys := rawFields(t, h.post("getQueue", branchBody(t, "main", nil)))
	if docKeys := objectKeys(t, []byte(example)); !reflect.DeepEqual(docKeys, keys) {
		t.Errorf("docs/api.md's getQueue example has the keys\n %v\ngetQueue answers\n %v", docKeys, keys)
	}
	for _, k := range keys {
		if k == "branch" || k == "enqueuedPullRequests" || k == "autoTuning" {
			continue // read-only
		}
		if !strings.Contains(text, fmt.Sprintf("\n| `%s` |", k)) {
			t.Errorf("docs/api.md's settings table has no row for %s", k)
		}
	}
}

// fastForwardLanding is refused, naming it and changing nothing, unless
// mergeMethod is merge_commit, in the same request or already stored; a
// mergeMethod change that would break the rule is refused too.
func TestFastForwardLandingNeedsMergeCommits(t *testing.T) {
	t.Parallel()
	h := newLiveHarness(t)
	wantError(t, h.post("createQueue", branchBody(t, "main", map[string]any{"fastForwardLanding": true})), 400, "fastForwardLanding requires mergeMethod merge_commit")
	if r := h.post("getQueue", branchBody(t, "main", nil)); r.status != 404 {
		t.Fatalf("a refused createQueue created the queue: %d %s", r.status, r.body)
	}
	wantEmptyObject(t, h.post("createQueue", branchBody(t, "main", map[string]any{"mergeMethod": "rebase"})))
	before := h.post("getQueue", branchBody(t, "main", nil)).body
	wantError(t, h.post("updateQueue", branchBody(t, "main", map[string]any{"fastForwardLanding": true})), 400, "fastForwardLanding")
	wantError(t, h.post("updateQueue", branchBody(t, "main", map[string]any{"fastForwardLanding": true, "mergeMethod": "squash"})), 400, "fastForwardLanding")
	if after := h.post("getQueue", branchBody(t, "main", nil)).body; after != before {
		t.Errorf("a refused update changed the queue:\n%s\n%s", before, after)
	}
	got, _ := rawFields(t, h.post("updateQueue", branchBody(t, "main", map[string]any{"fastForwardLanding": true, "mergeMethod": "merge_commit"})))
	if string(got["fastForwardLanding"]) != "true" || string(got["mergeMethod"]) != `"merge_commit"` {
		t.Fatalf("fastForwardLanding with merge_commit: %s, %s", got["fastForwardLanding"], got["mergeMethod"])
	}
	wantError(t, h.post("updateQueue", branchBody(t, "main", map[string]any{"mergeMethod": "squash"})), 400, "fastForwardLanding")
}

// autoTune is refused, naming it and changing nothing, without its bound
// on the runs at once (in the same request or stored); bounds out of range
// are refused too, and turning autoTune on with a bound reads back.
func TestAutoTuneNeedsItsBounds(t *testing.T) {
	t.Parallel()
	h := newLiveHarness(t)
	wantError(t, h.post("createQueue", branchBody(t, "main", map[string]any{"autoTune": true})), 400, "autoTune requires autoTuneMaxRuns")
	if r := h.post("getQueue", branchBody(t, "main", nil)); r.status != 404 {
		t.Fatalf("a refused createQueue created the queue: %d %s", r.status, r.body)
	}
	wantEmptyObject(t, h.post("createQueue", branchBody(t, "main", nil)))
	before := h.post("getQueue", branchBody(t, "main", nil)).body
	for _, bad := range []map[string]any{
		{"autoTune": true},
		{"autoTune": true, "autoTuneMaxRuns": 0},
		{"autoTune": true, "autoTuneMaxRuns": 1001},
		{"autoTuneMaxRuns": -1},
		{"autoTuneMaxRunsPerHundredMerges": -5},
		{"autoTune": true, "autoTuneMaxRuns": 8, "autoTuneMaxRunsPerHundredMerges": 100001},
		{"autoTune": "yes", "autoTuneMaxRuns": 8},
		{"autoTune": true, "autoTuneMaxRuns": 2.5},
	} {
		wantError(t, h.post("updateQueue", branchBody(t, "main", bad)), 400, "autoTune")
	}
	if after := h.post("getQueue", branchBody(t, "main", nil)).body; after != before {
		t.Errorf("a refused update changed the queue:\n%s\n%s", before, after)
	}
	got, _ := rawFields(t, h.post("updateQueue", branchBody(t, "main", map[string]any{"autoTune": true, "autoTuneMaxRuns": 8, "autoTuneMaxRunsPerHundredMerges": 150})))
	if string(got["autoTune"]) != "true" || string(got["autoTuneMaxRuns"]) != "8" || string(got["autoTuneMaxRunsPerHundredMerges"]) != "150" {
		t.Fatalf("autoTune with its bounds: %s, %s, %s", got["autoTune"], got["autoTuneMaxRuns"], got["autoTuneMaxRunsPerHundredMerges"])
	}
	// The bound cannot be unset while autoTune is on.
	wantError(t, h.post("updateQueue", branchBody(t, "main", map[string]any{"autoTuneMaxRuns": 0})), 400, "autoTune requires autoTuneMaxRuns")
}
