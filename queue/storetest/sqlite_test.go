package storetest_test

import (
	"context"
	"testing"

	"github.com/mergequeue/mq/queue/sqlite"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
	"github.com/mergequeue/mq/queue/storetest"
)

// TestSQLite proves the suite describes the durable store, every port of
// it.
func TestSQLite(t *testing.T) {
	t.Parallel()
	storetest.RunPorts(t, func(t *testing.T) storetest.Ports {
		s, err := sqlite.Open(context.Background(), sqlitetest.Path(t))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	})
}
