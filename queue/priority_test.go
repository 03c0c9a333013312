package queue

import "testing"

func TestParsePriority(t *testing.T) {
	tests := []struct {
		in      string
		value   int
		name    string
		def     bool
		wantErr bool
	}{
		{"", 100, "medium", true, false},
		{"URGENT", 0, "urgent", false, false},
		{"high", 10, "high", false, false},
		{"7", 7, "high", false, false},
		{"150", 150, "low", false, false},
		{"256", 0, "", false, true},
		{"-1", 0, "", false, true},
		{"soon", 0, "", false, true},
	}
	for _, tc := range tests {
		v, n, d, err := ParsePriority(tc.in)
		if (err != nil) != tc.wantErr || v != tc.value || n != tc.name || d != tc.def {
			t.Errorf("ParsePriority(%q) = %d, %q, %v, %v", tc.in, v, n, d, err)
		}
	}
}
