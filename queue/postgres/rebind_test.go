package postgres

import (
	"strings"
	"testing"
)

func TestRebind(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"a = ? AND b = ?", "a = $1 AND b = $2"},
		{"a = ?1 OR b = ?1 OR c = ?2", "a = $1 OR b = $1 OR c = $2"},
		{"a = ?2 AND b = ?", "a = $2 AND b = $3"},
		{"x = '?' AND y = ?", "x = '?' AND y = $1"},
		{"x = 'it''s ?' AND y = ?", "x = 'it''s ?' AND y = $1"},
		{`"we?ird" = ?`, `"we?ird" = $1`},
		{"a = ? -- why?\n AND b = ?", "a = $1 -- why?\n AND b = $2"},
		{"a = ? /* ? */ AND b = ?", "a = $1 /* ? */ AND b = $2"},
		{"a = ?0", "a = ?0"},
		{"'unclosed ?", "'unclosed ?"},
		{"token_id != '' AND seen_at + idle_ns <= ?1", "token_id != '' AND seen_at + idle_ns <= $1"},
	} {
		if got := Rebind(c.in); got != c.want {
			t.Errorf("Rebind(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzRebind: nothing but placeholders changes, no placeholder is left
// (rebinding the result changes nothing) and a query without '?' is
// unchanged.
func FuzzRebind(f *testing.F) {
	for _, s := range []string{"a = ? AND b = ?", "x = 'it''s ?' AND y = ?1", `"q?" = ?`, "-- ?\n?", "/* ? */ ?", "?0 ?99999999999999999999", "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got := Rebind(q)
		if !strings.Contains(q, "?") {
			if got != q {
				t.Fatalf("Rebind(%q) = %q; a query without placeholders must not change", q, got)
			}
			return
		}
		// Removing the placeholders from both leaves the same text.
		if strip(q, '?') != strip(got, '$') {
			t.Fatalf("Rebind(%q) = %q changed more than its placeholders", q, got)
		}
		if again := Rebind(got); again != got {
			t.Fatalf("Rebind(%q) = %q left a placeholder: rebinding it again gives %q", q, got, again)
		}
	})
}

// strip drops every '?', '$' and mark with the digits after it: the text
// around the placeholders.
func strip(s string, mark byte) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == mark || s[i] == '?' || s[i] == '$' {
			for i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
