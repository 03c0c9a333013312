package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue/postgres"
	"github.com/mergequeue/mq/queue/postgres/pgtest"
)

// A store whose writer connection was dropped (a statement cut off by its
// context, as a shutdown cuts the passes off) closes without error: its
// lock went, or goes, with the dropped session, and the schema opens
// again. Close asked a new connection to release it, which found the lock
// still held by the dropped session ending and failed the shutdown
// ("another process writes to this PostgreSQL schema").
func TestCloseAfterTheWriterConnectionWasDropped(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	for i := range 5 {
		s := open(t, url)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		err := s.WriterExec(ctx, `SELECT pg_sleep(5)`)
		cancel()
		if err == nil {
			t.Fatal("a five-second sleep ended within its 50 ms context")
		}
		if err := s.Close(); err != nil {
			t.Fatalf("Close after the writer's statement was cut off (round %d): %v", i, err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			s2, err := postgres.Open(context.Background(), url)
			if err == nil {
				if err := s2.Close(); err != nil {
					t.Fatal(err)
				}
				break
			}
			if !errors.Is(err, postgres.ErrLocked) || time.Now().After(deadline) {
				t.Fatalf("reopening after Close (round %d): %v", i, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
