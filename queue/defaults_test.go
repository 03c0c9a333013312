package queue

import (
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue/settingdecl"
)

// The test branch prefix a queue uses unless it sets one is the one
// docs/api.md states: the settings' declaration writes that default as
// text (it cannot import this package), so only this test ties the two.
func TestDefaultTestBranchPrefixIsDocumented(t *testing.T) {
	t.Parallel()
	if got := (Settings{}).EffectiveTestBranchPrefix(); got != "mq-merge/" {
		t.Errorf("a queue's default test branch prefix is %q, want mq-merge/", got)
	}
	for _, s := range settingdecl.All {
		if s.API != "testBranchPrefix" {
			continue
		}
		if want := "`" + DefaultTestBranchPrefix + "`"; s.DefaultDoc != want {
			t.Errorf("testBranchPrefix's documented default is %s, want %s", s.DefaultDoc, want)
		}
		return
	}
	t.Fatal("no testBranchPrefix setting declared")
}

// The queue's own check run is named after its branch, and every such
// name starts with the prefix the webhook handlers ignore.
func TestCheckRunName(t *testing.T) {
	t.Parallel()
	for _, branch := range []string{"main", "release/1.x"} {
		name := CheckRunName(branch)
		if name != "Merge Queue ("+branch+")" || !strings.HasPrefix(name, CheckRunPrefix) {
			t.Errorf("CheckRunName(%q) = %q, want Merge Queue (%s) under %q", branch, name, branch, CheckRunPrefix)
		}
	}
}
