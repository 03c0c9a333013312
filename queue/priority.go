package queue

import (
	"strconv"
	"strings"
)

// Named priorities (SPEC §5.1). Lower values go first.
const (
	PriorityUrgent  = 0
	PriorityHigh    = 10
	PriorityMedium  = 100
	PriorityLow     = 200
	PriorityMax     = 255
	DefaultPriority = PriorityMedium
)

var priorityNames = map[string]int{"urgent": PriorityUrgent, "high": PriorityHigh, "medium": PriorityMedium, "low": PriorityLow}

// PriorityName names a priority value: 0 urgent, 1–10 high, 11–100 medium,
// 101–255 low.
func PriorityName(v int) string {
	switch {
	case v <= PriorityUrgent:
		return "urgent"
	case v <= PriorityHigh:
		return "high"
	case v <= PriorityMedium:
		return "medium"
	default:
		return "low"
	}
}

// ParsePriority reads a priority given as a name (any case) or as an integer
// 0–255. The empty string is the default priority (usedDefault true).
func ParsePriority(s string) (value int, name string, usedDefault bool, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultPriority, PriorityName(DefaultPriority), true, nil
	}
	if v, ok := priorityNames[strings.ToLower(s)]; ok {
		return v, strings.ToLower(s), false, nil
	}
	v, convErr := strconv.Atoi(s)
	if convErr != nil || v < 0 || v > PriorityMax {
		return 0, "", false, Inputf("priority %q is not urgent, high, medium, low or a number from 0 to 255", s)
	}
	return v, PriorityName(v), false, nil
}
