package engine

import (
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestFailedCheckName(t *testing.T) {
	t.Parallel()
	for detail, want := range map[string]string{
		`required check "ci/test" failed (failure): https://ci/1`:                 "ci/test",
		`required check "a \"b\" c" failed (error)`:                               `a "b" c`,
		`required check "ci/test" failed (failure); trying again: attempt 2 of 2`: "ci/test",
		`tests did not finish within 60 minutes`:                                  "",
		`required check "ci/test" has not started on x within 10 minutes`:         "",
		`required check ""ci" failed`:                                             "",
	} {
		got, ok := queue.FailedCheckName(detail)
		if got != want || ok != (want != "") {
			t.Errorf("FailedCheckName(%q) = %q, %v; want %q", detail, got, ok, want)
		}
	}
}

// FailedCheckName reads back every name EvaluateChecks writes, and never
// panics on other text.
func FuzzFailedCheckName(f *testing.F) {
	for _, s := range []string{"ci/test", `a "b"`, "", "é\x00\n", "\xff"} {
		f.Add(s, "https://ci/1")
	}
	f.Fuzz(func(t *testing.T, name, url string) {
		_, detail := EvaluateChecks([]string{name}, []queue.CheckResult{{Name: name, State: queue.CheckFailure, Raw: "failure", URL: url}})
		got, ok := queue.FailedCheckName(detail)
		if name != "" && (!ok || got != name) {
			t.Fatalf("FailedCheckName(%q) = %q, %v; want %q", detail, got, ok, name)
		}
		_, _ = queue.FailedCheckName(name + url)
	})
}
