package service

import (
	"strings"
	"testing"
)

// FuzzMergeTitle checks the merge-commit-title: line parser on any PR body:
// a found title is trimmed, on one line, and the rest of the first line
// (any case, surrounding spaces aside) that starts with the key; a title
// written on its own line between others is found as written, trimmed.
func FuzzMergeTitle(f *testing.F) {
	const key = "merge-commit-title:"
	for _, s := range []struct{ body, title string }{
		{"Fixes #12\r\n\r\nmerge-commit-title: Fix the frobnicator (#12)\r\n", "Release 1.2"},
		{"MERGE-COMMIT-TITLE:   shouting  ", "x"},
		{"merge-commit-title:", " "},
		{"merge-commit-title:\t\u00a0\u2028", "a\rb"},
		{"  merge-commit-title: first\nmerge-commit-title: second", "\u0085trim\u0085"},
		{"merge-commit-title x\nmerge-commit-titles: y\n> merge-commit-title: quoted", "ünïcödé ✓"},
		{"merge-commit-title:\xffbad", "\xff"},
		{"merge-commit-tıtle: dotless", "\x00"},
		{"", ""},
		{strings.Repeat("merge-commit-title", 50), strings.Repeat("t", 300)},
	} {
		f.Add(s.body, s.title)
	}
	f.Fuzz(func(t *testing.T, body, title string) {
		got := mergeTitle(body)
		if strings.Contains(got, "\n") || strings.TrimSpace(got) != got {
			t.Fatalf("mergeTitle(%q) = %q: not one trimmed line", body, got)
		}
		if got != "" {
			found := false
			for _, line := range strings.Split(body, "\n") {
				line = strings.TrimSpace(line)
				if len(line) > len(key) && strings.EqualFold(line[:len(key)], key) {
					found = strings.TrimSpace(line[len(key):]) == got
					break
				}
			}
			if !found {
				t.Fatalf("mergeTitle(%q) = %q, not the first title line", body, got)
			}
		}
		if strings.Contains(title, "\n") {
			return
		}
		written := "Some description\n\n" + strings.ReplaceAll(body, key, "") + "\n" + key + " " + title + "\r\nSigned-off-by: someone"
		if strings.Contains(strings.ToLower(strings.ReplaceAll(written, key+" "+title, "")), key) {
			return // another title line may come first
		}
		if got := mergeTitle(written); got != strings.TrimSpace(title) {
			t.Fatalf("mergeTitle(%q) = %q, want %q", written, got, strings.TrimSpace(title))
		}
	})
}
