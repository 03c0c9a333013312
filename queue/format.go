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
