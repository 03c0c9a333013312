package app

import (
	"fmt"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue/service"
)

// CommandsConfig configures PR comment commands.
type CommandsConfig struct {
	Prefix string `yaml:"prefix"`
}

// validate reports a prefix the command parser could not match.
func (c CommandsConfig) validate() error {
	if c.Prefix == "" || strings.ContainsAny(c.Prefix, " \t\r\n") {
		return fmt.Errorf("commands.prefix: %q must be one non-empty word", c.Prefix)
	}
	return nil
}

// TestPRsConfig configures the draft test PRs of queues with
// createPrsForTestingBranches.
type TestPRsConfig struct {
	// TitleTemplate is a Go text/template for their titles, executed with
	// service.TestPRTitleData (.PRs, .Numbers, .Branch, .TestBranch,
	// .Bisection); default service.DefaultTestPRTitle.
	TitleTemplate string `yaml:"title_template"`
}

// validate reports a title template that does not parse or names nothing.
func (t TestPRsConfig) validate() error {
	if _, err := service.ParseTestPRTitle(t.TitleTemplate); err != nil {
		return fmt.Errorf("test_prs.title_template: %v", err)
	}
	return nil
}

// EngineConfig tunes the queue workers.
type EngineConfig struct {
	// ReconcileInterval bounds how long a missed CI webhook can delay a
	// queue; a queued PR nothing was heard of for ten intervals is re-read
	// (service.Options.PRRecheckEvery).
	ReconcileInterval time.Duration `yaml:"reconcile_interval"`
}

// validate reports an interval the reconciler's ticker would refuse.
func (e EngineConfig) validate() error {
	if e.ReconcileInterval <= 0 {
		return fmt.Errorf("engine.reconcile_interval: %s must be positive", e.ReconcileInterval)
	}
	return nil
}
