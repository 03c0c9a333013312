package notify

import (
	"testing"

	"github.com/mergequeue/mq/internal/importcheck"
)

// The dependency direction is app → queue/sqlite, and queue/sqlite may not
// import app/...: this package declares what it needs of a store (Store,
// Cursor) and must import neither the SQLite store nor the application.
func TestDependencyDirection(t *testing.T) {
	t.Parallel()
	importcheck.Forbid(t, "github.com/mergequeue/mq/app/notify",
		"github.com/mergequeue/mq/queue/sqlite",
		"github.com/mergequeue/mq/app")
}
