package handlers

import (
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// The /mq status reply quotes each entry's state detail, which can quote
// check names and CI URLs: it shows them as text, never as a mention,
// link, image or HTML.
func TestStatusReplyEscapesTheDetail(t *testing.T) {
	t.Parallel()
	e := &queue.Entry{State: queue.StatePendingFailure, StateReason: queue.ReasonTestsFailed, PriorityName: "medium",
		StateReasonDetail: `tests failed (required check "ci @org/team" failed (failure): ](http://evil) ![x](http://evil/x.png) <!channel>)`}
	got := statusReply("alice", []queuedEntry{{Branch: "main", Entry: e}})
	for _, raw := range []string{"@org", "](http://evil)", "![x]", "<!channel>"} {
		if strings.Contains(got, raw) {
			t.Errorf("status reply holds %q raw:\n%s", raw, got)
		}
	}
	if !strings.HasPrefix(got, "@alice ") {
		t.Errorf("status reply %q, want it to answer @alice", got)
	}
}
