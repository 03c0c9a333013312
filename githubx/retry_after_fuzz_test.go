package githubx

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := testNow
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"7", 7 * time.Second, true},
		{" 30 ", 30 * time.Second, true},
		{"0", 0, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"99999999999", 24 * time.Hour, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{now.Add(100 * 24 * time.Hour).Format(http.TimeFormat), 24 * time.Hour, true},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, seed := range []string{"", "0", "60", " 5", "-3", "1e3", "Sun, 01 Mar 2026 12:01:00 GMT", "99999999999999999999"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := parseRetryAfter(v, testNow)
		if d < 0 || d > maxRetryAfter {
			t.Fatalf("parseRetryAfter(%q) = %v, outside [0, %v]", v, d, maxRetryAfter)
		}
		if !ok && d != 0 {
			t.Fatalf("parseRetryAfter(%q) = %v without ok", v, d)
		}
		// Whole seconds are read exactly, capped at a day.
		if secs, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && secs >= 0 {
			if want := time.Duration(min(secs, 86400)) * time.Second; !ok || d != want {
				t.Fatalf("parseRetryAfter(%q) = %v, %v; want %v", v, d, ok, want)
			}
		}
	})
}
