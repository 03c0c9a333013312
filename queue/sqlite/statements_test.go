package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// Statements counts what the store sends to the file: one for a point
// read, one for a write outside a transaction, and a transaction's begin
// and commit beside what runs in it; a read of a missing row is still one.
func TestStatementsCountsWhatTheStoreSends(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	step := func(what string, want int64, fn func() error) {
		t.Helper()
		before := s.Statements()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := s.Statements() - before; got != want {
			t.Errorf("%s counted %d statements, want %d", what, got, want)
		}
	}
	step("a point read", 1, func() error { _, err := s.GetQueueByID(ctx, q.ID); return err })
	step("a read of a missing queue", 1, func() error {
		if _, err := s.GetQueueByID(ctx, q.ID+100); err == nil {
			t.Error("a missing queue was found")
		}
		return nil
	})
	step("a list of entries", 1, func() error { _, err := s.ListActiveEntries(ctx, q.ID); return err })
	step("a transaction of two reads", 4, func() error {
		return s.WithTx(ctx, func(tx queue.Store) error {
			if _, err := tx.GetQueueByID(ctx, q.ID); err != nil {
				return err
			}
			_, err := tx.ListActiveEntries(ctx, q.ID)
			return err
		})
	})
}

// A statement the store sends again is not parsed again: after a first
// round of reads and writes, more rounds parse nothing new.
func TestStatementsAreParsedOnce(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	round := func() {
		t.Helper()
		if _, err := s.GetQueueByID(ctx, q.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ListActiveEntries(ctx, q.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.WithTx(ctx, func(tx queue.Store) error {
			_, err := tx.GetQueueByID(ctx, q.ID)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	round()
	// The read pool has several connections, each with its own cache: a
	// round may land on one that has not seen a read yet.
	for range readPoolSize {
		round()
	}
	parsed := s.Prepared()
	sent := s.Statements()
	for range 20 {
		round()
	}
	if got := s.Prepared() - parsed; got != 0 {
		t.Errorf("20 more rounds of the same statements parsed %d statements, want 0", got)
	}
	if got := s.Statements() - sent; got != 20*5 {
		t.Errorf("20 rounds sent %d statements, want %d", got, 20*5)
	}
}

// On SQLite itself, a query run again while its cached statement's rows
// are still being read gives both callers their rows.
func TestStatementCacheNestedQueryOnSQLite(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for _, b := range []string{"a", "b", "c"} {
		mustQueue(t, s, b)
	}
	const list = `SELECT branch FROM queues ORDER BY branch`
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	outer, err := tx.QueryContext(ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for outer.Next() {
		var b string
		if err := outer.Scan(&b); err != nil {
			t.Fatal(err)
		}
		inner, err := tx.QueryContext(ctx, list)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for inner.Next() {
			n++
		}
		if err := inner.Close(); err != nil || n != 3 {
			t.Fatalf("inner query: %d rows (%v), want 3", n, err)
		}
		got = append(got, b)
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "a,b,c" {
		t.Errorf("outer query gave %v, want a, b, c", got)
	}
}
