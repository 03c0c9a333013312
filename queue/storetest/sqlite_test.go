package storetest_test

import (
	"testing"

	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
	"github.com/mergequeue/mq/queue/storetest"
)

// TestSQLite proves the suite describes the durable store, every port of
// it.
func TestSQLite(t *testing.T) {
	t.Parallel()
	storetest.RunPorts(t, func(t *testing.T) storetest.Ports {
		s := sqlitetest.Open(t)
		return s
	})
}
