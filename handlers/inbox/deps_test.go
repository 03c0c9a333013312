package inbox

import (
	"testing"

	"github.com/mergequeue/mq/internal/importcheck"
)

// queue/sqlite implements Store and imports this package, app wires it,
// and package handlers is what the processor dispatches to: none may be
// among its dependencies.
func TestDependencyDirection(t *testing.T) {
	t.Parallel()
	importcheck.Forbid(t, "github.com/mergequeue/mq/handlers/inbox",
		"github.com/mergequeue/mq/queue/sqlite",
		"github.com/mergequeue/mq/app/...",
		"github.com/mergequeue/mq/handlers",
		"github.com/mergequeue/mq/handlers/api/...")
}
