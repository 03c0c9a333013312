package queue

import (
	"fmt"
	"strings"
)

// ShortSHA is a commit SHA cut to seven characters, as GitHub shows it.
func ShortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// PRList formats PR numbers as "#1, #2".
func PRList(nums []int) string {
	parts := make([]string, len(nums))
	for i, n := range nums {
		parts[i] = fmt.Sprintf("#%d", n)
	}
	return strings.Join(parts, ", ")
}

// Count formats n with its unit, singular for one: "1 minute",
// "10 minutes". The plural is unit + "s".
func Count(n int, unit string) string {
	if n == 1 || n == -1 {
		return fmt.Sprintf("%d %s", n, unit)
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
