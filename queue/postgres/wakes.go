package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"
)

// wakeChannel is the NOTIFY channel of the schema's queue wake-ups: one
// per schema, so that deployments sharing a database do not wake each
// other (at most 63 bytes, PostgreSQL's identifier length).
func wakeChannel(schema string) string {
	ch := "mq_wake " + schema
	if len(ch) > 63 {
		ch = ch[:63]
	}
	return ch
}

// WakeQueue tells every replica listening on the schema (ListenWakes) that
// queueID has work: its holder syncs it within the notification's
// delivery, well under a second. A queue ID of 0 or less wakes every
// queue.
func (s *Store) WakeQueue(ctx context.Context, queueID int64) error {
	if _, err := s.writer.ExecContext(ctx, `SELECT pg_notify($1, $2)`, s.wakes, strconv.FormatInt(queueID, 10)); err != nil {
		return fmt.Errorf("failed to wake queue %d on the other replicas: %w", queueID, err)
	}
	return nil
}

// ListenWakes calls wake with the queue ID of each WakeQueue of any
// replica on the schema (0 or less: every queue), until ctx ends; it
// returns nil then. It listens on a connection of its own and reconnects
// when that is lost, calling wake(0) after each (re)connection, since a
// wake-up sent meanwhile is lost.
func (s *Store) ListenWakes(ctx context.Context, wake func(queueID int64)) error {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := s.listen(ctx, wake)
		if ctx.Err() != nil {
			return nil
		}
		zerolog.Ctx(ctx).Warn().Err(err).Dur("retry_in", backoff).Msg("queue wake-ups from other replicas interrupted")
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
	return nil
}

// listen runs one listening connection until it fails or ctx ends.
func (s *Store) listen(ctx context.Context, wake func(queueID int64)) error {
	conn, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return fmt.Errorf("failed to connect to listen for queue wake-ups: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = conn.Close(cctx)
		cancel()
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.wakes}.Sanitize()); err != nil {
		return fmt.Errorf("failed to listen for queue wake-ups: %w", err)
	}
	wake(0) // what was sent while nobody listened
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("failed to wait for queue wake-ups: %w", err)
		}
		id, err := strconv.ParseInt(n.Payload, 10, 64)
		if err != nil {
			continue // not ours
		}
		wake(id)
	}
}
