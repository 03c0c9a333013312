package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue/settingdecl"
)

// root is the module root, from this package's directory.
const root = "../../.."

// The generated files and docs/api.md's settings table are what the
// declaration generates: a setting declared, changed or removed without
// `go generate ./queue/settingdecl`, or a generated file edited by hand,
// fails here.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	t.Parallel()
	files, err := generate(root, settingdecl.All)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(root, f.path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.content) {
			t.Errorf("%s is not what the declaration generates: run go generate ./queue/settingdecl\n%s", f.path, firstDifference(got, f.content))
		}
	}
}

// A setting added to the declaration reaches every output: the domain's
// fields, default, update and validation, the API's request and response,
// the stored document and the docs table.
func TestANewSettingReachesEveryOutput(t *testing.T) {
	t.Parallel()
	added := settingdecl.Setting{
		API: "mergeWindowMinutes", Field: "MergeWindowMinutes", Store: "merge_window_minutes", LaterKey: true, Kind: settingdecl.Int,
		Min: 0, Max: 120, MaxConst: "MaxMergeWindowMinutes", Doc: "MergeWindowMinutes is a test setting.",
		Rule: "a rule for the docs", Example: 30,
	}
	files, err := generate(root, append(append([]settingdecl.Setting{}, settingdecl.All...), added))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"queue/settings_gen.go": {"MaxMergeWindowMinutes = 120", "MergeWindowMinutes int }", "MergeWindowMinutes *int }",
			"s.MergeWindowMinutes = *u.MergeWindowMinutes", `"mergeWindowMinutes must be between 0 and %d, got %d", MaxMergeWindowMinutes`},
		"handlers/api/queue_settings_gen.go": {"MergeWindowMinutes *int `json:\"mergeWindowMinutes\"`",
			"MergeWindowMinutes int `json:\"mergeWindowMinutes\"`", "MergeWindowMinutes: f.MergeWindowMinutes", "MergeWindowMinutes: s.MergeWindowMinutes"},
		"queue/sqlstore/settings_gen.go": {"MergeWindowMinutes int `json:\"merge_window_minutes\"`"},
		"docs/api.md":                    {"| `mergeWindowMinutes` | integer | `0` | 0–120; a rule for the docs |"},
	}
	for _, f := range files {
		for _, w := range want[f.path] {
			if !strings.Contains(squash(string(f.content)), squash(w)) {
				t.Errorf("%s lacks %q", f.path, w)
			}
		}
		delete(want, f.path)
	}
	if len(want) > 0 {
		t.Errorf("not generated: %v", want)
	}
}

// An invalid declaration generates nothing.
func TestAnInvalidDeclarationGeneratesNothing(t *testing.T) {
	t.Parallel()
	bad := append([]settingdecl.Setting{}, settingdecl.All...)
	bad[0].Store = bad[1].Store
	if files, err := generate(root, bad); err == nil || files != nil {
		t.Fatalf("generate with a stored key twice: %d files, err %v", len(files), err)
	}
}

// squash is s with every run of white space made one space, as gofmt's
// alignment varies.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// firstDifference shows where got and want part, for the failure message.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n  is:        %s\n  generates: %s", i+1, gl, wl)
		}
	}
	return ""
}
