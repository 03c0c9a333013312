package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestPRNumberUnmarshal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want int
		ok   bool
	}{
		{"number", `12`, 12, true},
		{"string", `"12"`, 12, true},
		{"string with spaces", `" 12 "`, 12, true},
		{"leading zeros in string", `"007"`, 7, true},
		{"null", `null`, 0, true},
		{"max", `2147483647`, 2147483647, true},
		{"over max", `2147483648`, 0, false},
		{"zero", `0`, 0, false},
		{"zero string", `"0"`, 0, false},
		{"negative", `-1`, 0, false},
		{"negative string", `"-1"`, 0, false},
		{"plus string", `"+1"`, 0, false},
		{"fraction", `1.0`, 0, false},
		{"exponent", `1e2`, 0, false},
		{"empty string", `""`, 0, false},
		{"word", `"abc"`, 0, false},
		{"bool", `true`, 0, false},
		{"object", `{}`, 0, false},
		{"array", `[1]`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var n prNumber
			err := n.UnmarshalJSON([]byte(tt.in))
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil {
				if status, msg := statusOf(err); status != http.StatusBadRequest || !strings.Contains(msg, "pr.number") {
					t.Errorf("error = %d %q, want a 400 naming pr.number", status, msg)
				}
				return
			}
			if int(n) != tt.want {
				t.Errorf("n = %d, want %d", n, tt.want)
			}
		})
	}
}

func TestPriorityUnmarshal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
		ok   bool
	}{
		{"name", `"urgent"`, "urgent", true},
		{"name any case kept for the queue", `"High"`, "High", true},
		{"name trimmed", `" low "`, "low", true},
		{"empty string is default", `""`, "", true},
		{"null is default", `null`, "", true},
		{"zero", `0`, "0", true},
		{"zero string", `"0"`, "0", true},
		{"zeros string", `"000"`, "0", true},
		{"number", `100`, "100", true},
		{"max", `255`, "255", true},
		{"numeric string", `"42"`, "42", true},
		{"over max", `256`, "", false},
		{"over max string", `"256"`, "", false},
		{"negative string", `"-1"`, "", false},
		{"plus string", `"+5"`, "", false},
		{"huge string", `"99999999999999999999999"`, "", false},
		{"negative", `-1`, "", false},
		{"negative zero", `-0`, "", false},
		{"fraction", `1.5`, "", false},
		{"zero fraction", `0.5`, "", false},
		{"exponent", `1e2`, "", false},
		{"bool", `false`, "", false},
		{"object", `{"name":"high"}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var p priorityField
			err := p.UnmarshalJSON([]byte(tt.in))
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil {
				if status, msg := statusOf(err); status != http.StatusBadRequest || !strings.Contains(msg, "priority") {
					t.Errorf("error = %d %q, want a 400 naming priority", status, msg)
				}
				return
			}
			if p.Value != tt.want {
				t.Errorf("value = %q, want %q", p.Value, tt.want)
			}
		})
	}
}

// FuzzDecodeSubmit checks that decoding and validating any body either
// yields a complete submit request or a 400, never a panic or another
// status, and that error messages stay on one line.
func FuzzDecodeSubmit(f *testing.F) {
	seeds := []string{
		body(`"pr":{"number":12}`),
		body(`"pr":{"number":"12"}`, `"priority":"high"`, `"noBatch":true`),
		body(`"pr":{"number":1}`, `"priority":255`),
		body(`"pr":{"number":1}`, `"priority":null`),
		body(`"pr":{"number":"1\n2"}`),
		body(`"pr":{"number":1.5}`),
		`{"repo":{"host":"github.com","owner":"o","name":"r"},"targetBranch":"m","pr":{"number":"9999999999999999999999"}}`,
		`{"repo":null,"pr":null}`,
		`{"repo":{"host":"\u2028"}}`,
		`[]`, `null`, `""`, `{`, ``, `{"priority":"\ud800"}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var req submitRequest
		err := decodeJSON(b, &req)
		if err == nil {
			err = req.validate()
		}
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) {
				t.Fatalf("error %T %v is not an *apiError", err, err)
			}
			status, msg := statusOf(err)
			if status != http.StatusBadRequest {
				t.Fatalf("status %d for %q, want 400", status, b)
			}
			if strings.ContainsAny(oneLine(msg), "\r\n") {
				t.Fatalf("message %q spans lines", msg)
			}
			return
		}
		if !json.Valid(b) {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		if req.Repo.Host == "" || req.Repo.Owner == "" || req.Repo.Name == "" || req.TargetBranch == "" {
			t.Fatalf("accepted request with a missing field: %+v", req)
		}
		if req.PR.Number < 1 || req.PR.Number > maxPRNumber {
			t.Fatalf("accepted pr.number %d", req.PR.Number)
		}
		if v, err := strconv.Atoi(req.Priority.Value); err == nil {
			if v < 0 || v > maxPriority || strconv.Itoa(v) != req.Priority.Value {
				t.Fatalf("accepted priority %q", req.Priority.Value)
			}
		}
	})
}
