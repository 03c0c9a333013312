package apitoken

import (
	"testing"

	"github.com/mergequeue/mq/internal/importcheck"
)

// queue/sqlite implements Store and imports this package; handlers/api and
// cmd/bot use it: none may be among its dependencies.
func TestDependencyDirection(t *testing.T) {
	t.Parallel()
	importcheck.Forbid(t, "github.com/mergequeue/mq/handlers/api/apitoken",
		"github.com/mergequeue/mq/queue/sqlite",
		"github.com/mergequeue/mq/app/...",
		"github.com/mergequeue/mq/cmd/...",
		"github.com/mergequeue/mq/handlers",
		"github.com/mergequeue/mq/handlers/api")
}
