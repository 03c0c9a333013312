package storetest_test

import (
	"context"
	"testing"

	"github.com/mergequeue/mq/queue/postgres"
	"github.com/mergequeue/mq/queue/postgres/pgtest"
	"github.com/mergequeue/mq/queue/storetest"
)

// TestPostgres proves the PostgreSQL store passes the same suite as
// SQLite, every port of it (skipped without MQ_TEST_POSTGRES_URL).
func TestPostgres(t *testing.T) {
	t.Parallel()
	storetest.RunPorts(t, func(t *testing.T) storetest.Ports {
		s, err := postgres.Open(context.Background(), pgtest.URL(t))
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

// TestPostgresShared proves two PostgreSQL stores on one schema (two
// replicas) share its inbox and outbox.
func TestPostgresShared(t *testing.T) {
	t.Parallel()
	storetest.RunShared(t, func(t *testing.T) (storetest.Ports, storetest.Ports) {
		url := pgtest.URL(t)
		var out [2]storetest.Ports
		for i := range out {
			s, err := postgres.Open(context.Background(), url, postgres.NoWriterLock())
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			out[i] = s
		}
		return out[0], out[1]
	})
}
