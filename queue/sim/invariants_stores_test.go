package sim

import (
	"context"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/postgres"
	"github.com/mergequeue/mq/queue/postgres/pgtest"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
)

// storeSeeds is how many seeds the suite runs on each durable store: far
// fewer than on the memstore (each step is real SQL; SQLite's pure-Go
// driver is slow under -race: about 4 s a seed), enough to drive every
// kind of write through it. -seed N runs seed N alone.
const storeSeeds = 8

// TestInvariantsOnSQLite runs the randomized invariant suite with the
// Service on the SQLite store.
func TestInvariantsOnSQLite(t *testing.T) {
	t.Parallel()
	runSeedsOn(t, func(t *testing.T) queue.Store {
		s := sqlitetest.Open(t)
		return s
	})
}

// TestInvariantsOnPostgres runs the randomized invariant suite with the
// Service on the PostgreSQL store (skipped without MQ_TEST_POSTGRES_URL).
func TestInvariantsOnPostgres(t *testing.T) {
	t.Parallel()
	runSeedsOn(t, func(t *testing.T) queue.Store {
		s, err := postgres.Open(context.Background(), pgtest.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	})
}

// runSeedsOn runs seeds 1..storeSeeds (or -seed alone), each on a new
// store from newStore, and reports the first failure with its event log.
func runSeedsOn(t *testing.T, newStore func(t *testing.T) queue.Store) {
	seeds := []uint64{}
	if *invSeed != 0 {
		seeds = append(seeds, *invSeed)
	} else {
		for s := uint64(1); s <= storeSeeds; s++ {
			seeds = append(seeds, s)
		}
	}
	for _, seed := range seeds {
		ok := t.Run("", func(t *testing.T) {
			d, err := NewDriver(seed, DriverOptions{Steps: *invSteps, HitKnownBugs: *invKnown, Store: newStore(t)})
			if err != nil {
				t.Fatal(err)
			}
			if d.Run() != nil {
				t.Fatalf("seed %d:\n%s", seed, d.Report())
			}
		})
		if !ok {
			return
		}
	}
}
