package storetest_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/sqlite"
	"github.com/mergequeue/mq/queue/storetest"
)

// TestSQLite proves the suite describes the durable store.
func TestSQLite(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) queue.Store {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "mq.db"))
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
