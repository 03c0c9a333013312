package handlers

import (
	"testing"

	"github.com/mergequeue/mq/queue"
)

// An empty Config serves github.com, reads "/mq" commands and submits PRs
// labelled as a new queue's enqueueing label is: the defaults come from
// the packages that own them, and this pins what a user sees.
func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	c := Config{}.withDefaults()
	if c.Host != "github.com" || c.CommandPrefix != "/mq" || c.EnqueueLabel != "merge-queue" {
		t.Errorf("defaults: host %q, prefix %q, label %q; want github.com, /mq, merge-queue", c.Host, c.CommandPrefix, c.EnqueueLabel)
	}
	if want := queue.DefaultSettings().EnqueueingLabel; c.EnqueueLabel != want {
		t.Errorf("the label for a branch with no queue is %q, a new queue's is %q", c.EnqueueLabel, want)
	}
}
