package queue

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// FuzzParsePriority checks that ParsePriority accepts only the default, a
// known name or an integer 0–255, names every value by its band, and that
// an accepted value parses back from its number and its name's band; a
// refusal is an *InputError on one line.
func FuzzParsePriority(f *testing.F) {
	for _, s := range []string{
		"", " ", "urgent", "HIGH", " Medium ", "low", "0", "10", "255", "256", "-1", "-0", "+5", "007",
		"1e2", "0x10", "high\n", "hi gh", "ｈｉｇｈ", "\u0130", "٣", "99999999999999999999", "\xff",
		"default", "highest", "\tlow\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, name, usedDefault, err := ParsePriority(s)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || strings.ContainsAny(ie.Msg, "\r\n") || ie.Msg == "" {
				t.Fatalf("ParsePriority(%q) error %T %q, want an *InputError on one line", s, err, err)
			}
			return
		}
		trimmed := strings.TrimSpace(s)
		if usedDefault != (trimmed == "") || (usedDefault && v != DefaultPriority) {
			t.Fatalf("ParsePriority(%q) = %d, default %v", s, v, usedDefault)
		}
		if v < 0 || v > PriorityMax || name != PriorityName(v) {
			t.Fatalf("ParsePriority(%q) = %d, %q", s, v, name)
		}
		if n, err := strconv.Atoi(trimmed); err == nil && n != v {
			t.Fatalf("ParsePriority(%q) = %d, want %d", s, v, n)
		} else if err != nil && !usedDefault && !strings.EqualFold(trimmed, name) {
			t.Fatalf("ParsePriority(%q) = %d: not a number nor the name %q", s, v, name)
		}
		if back, _, _, err := ParsePriority(strconv.Itoa(v)); err != nil || back != v {
			t.Fatalf("%d does not parse back: %d, %v", v, back, err)
		}
		if back, _, _, err := ParsePriority(name); err != nil || PriorityName(back) != name {
			t.Fatalf("name %q of %d parses as %d, %v", name, v, back, err)
		}
	})
}
