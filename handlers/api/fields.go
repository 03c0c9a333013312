package api

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// maxPRNumber bounds pull request numbers (GitHub numbers are 32-bit).
const maxPRNumber = 1<<31 - 1

// prNumber is a pull request number that arrives as a JSON number or, from
// some CI actions, as a numeric string ("12"). Zero means absent (missing or
// null); anything that is not a positive integer is a 400.
type prNumber int

// UnmarshalJSON accepts 12, "12" and null.
func (n *prNumber) UnmarshalJSON(b []byte) error {
	raw := string(b)
	if raw == "null" {
		*n = 0
		return nil
	}
	digits := raw
	if strings.HasPrefix(raw, `"`) {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return badRequestf("invalid field pr.number: %v", err)
		}
		digits = strings.TrimSpace(s)
	}
	v, ok := positiveInt(digits, maxPRNumber)
	if !ok {
		return badRequestf("invalid field pr.number: must be a positive integer, got %s", truncate(raw))
	}
	*n = prNumber(v)
	return nil
}

// positiveInt parses a decimal integer 1..max made only of ASCII digits.
func positiveInt(s string, max int64) (int, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 1 || v > max {
		return 0, false
	}
	return int(v), true
}

// maxPriority is the largest numeric priority (SPEC §5.1).
const maxPriority = 255

// priorityField is a submit priority: a name (any case; the queue checks
// it), an integer 0–255, a numeric string, or null. Value is what
// queue.SubmitRequest.Priority expects: "" for the default, a name, or a
// canonical decimal number.
type priorityField struct {
	Value string
}

// UnmarshalJSON accepts "high", 10, "10" and null.
func (p *priorityField) UnmarshalJSON(b []byte) error {
	raw := string(b)
	switch {
	case raw == "null":
		p.Value = ""
		return nil
	case strings.HasPrefix(raw, `"`):
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return badRequestf("invalid field priority: %v", err)
		}
		s = strings.TrimSpace(s)
		if _, err := strconv.ParseInt(s, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			return p.setNumber(s, raw) // "42", but also "-1" and "+5", refused there
		}
		p.Value = s
		return nil
	case raw != "" && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')):
		return p.setNumber(raw, raw)
	}
	return badRequestf("invalid field priority: must be a name, an integer 0–%d or null, got %s", maxPriority, truncate(raw))
}

func (p *priorityField) setNumber(digits, raw string) error {
	if digits == "0" || strings.Trim(digits, "0") == "" {
		p.Value = "0"
		return nil
	}
	v, ok := positiveInt(digits, maxPriority)
	if !ok {
		return badRequestf("invalid field priority: must be a name or an integer 0–%d, got %s", maxPriority, truncate(raw))
	}
	p.Value = strconv.Itoa(v)
	return nil
}
