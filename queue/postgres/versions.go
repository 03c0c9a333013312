package postgres

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// versionTimeout bounds the read of a queue's version.
const versionTimeout = 2 * time.Second

// versionMaxStale bounds how long a version read from the database is
// served from memory without a notification saying it moved: the fallback
// should a notification be lost. Versions are not served from memory at
// all while the listener is not connected.
const versionMaxStale = time.Second

// versionChannel is the NOTIFY channel on which the database tells of each
// bump of a queue's version on the schema (migration 00009): the same
// text, cut to 63 bytes as PostgreSQL cuts identifiers.
func versionChannel(schema string) string {
	ch := "mq_versions " + schema
	if len(ch) > 63 {
		ch = ch[:63]
	}
	return ch
}

// versionCache keeps the queues' versions as last read from the database,
// for as long as the listener is connected and no notification said they
// moved.
type versionCache struct {
	start sync.Once
	mu    sync.Mutex
	live  bool   // the listener is connected: notifications invalidate entries
	gen   uint64 // moves with every invalidation: a read begun before one is not kept
	byQ   map[int64]cachedVersion
	// queries counts the versions read from the database.
	queries uint64
}

type cachedVersion struct {
	v  int64
	at time.Time
}

// QueueVersion returns a number that grows with every committed write that
// may change what the reads of queue queueID return, of any replica on the
// schema: the queue's write version as the database keeps it (queue_versions,
// bumped by triggers in the transaction of every write to the queue's row,
// entries, runs, targets or events, and of every queue's creation or
// deletion), plus this process's own writes as it makes them. This
// process's writes move it before they return; another replica's move it
// once their notification arrives (at commit, milliseconds), and at the
// latest versionMaxStale later should a notification be lost. The
// database's version is served from memory while the store's listener is
// connected and nothing moved it, else read (one row, from the read pool);
// if that read fails, the result is a number no earlier or later call
// returns, so that nothing kept by it is served.
func (s *Store) QueueVersion(queueID int64) uint64 {
	s.versions.start.Do(func() { go s.listenVersions() })
	local := s.Store.QueueVersion(queueID)
	now := time.Now()
	c := &s.versions
	c.mu.Lock()
	if e, ok := c.byQ[queueID]; ok && c.live && now.Sub(e.at) < versionMaxStale {
		c.mu.Unlock()
		return uint64(e.v) + local //nolint:gosec // a sum of counters that only grow: never negative
	}
	gen := c.gen
	c.queries++
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), versionTimeout)
	defer cancel()
	var v int64
	err := s.reader.QueryRowContext(ctx,
		`SELECT COALESCE(SUM(version), 0) FROM queue_versions WHERE queue_id = 0 OR queue_id = $1`, queueID).Scan(&v)
	if err != nil {
		return 1<<63 | s.unknownVersion.Add(1)
	}
	v = max(v, 0)
	c.mu.Lock()
	if c.live && c.gen == gen {
		c.byQ[queueID] = cachedVersion{v: v, at: now}
	}
	c.mu.Unlock()
	return uint64(v) + local //nolint:gosec // a sum of counters that only grow: never negative
}

// invalidate forgets the version of queueID (0: of every queue, whose
// versions all count queue 0's), and sets whether the listener is live.
func (c *versionCache) invalidate(queueID int64, live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.live = live
	if queueID == 0 || c.byQ == nil {
		c.byQ = map[int64]cachedVersion{}
		return
	}
	delete(c.byQ, queueID)
}

// versionQueries returns how many versions were read from the database.
func (c *versionCache) versionQueries() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.queries
}

// listenVersions keeps a connection listening to the schema's version
// notifications until the store is closed, reconnecting when it is lost;
// while none is connected, versions are read at every call.
func (s *Store) listenVersions() {
	defer close(s.listenDone)
	ctx := s.listenCtx
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := s.listenVersionsOnce(ctx)
		s.versions.invalidate(0, false)
		if ctx.Err() != nil {
			return
		}
		_ = err // the reads go to the database meanwhile; nothing to tell
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// listenVersionsOnce runs one listening connection until it fails or ctx
// ends.
func (s *Store) listenVersionsOnce(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return fmt.Errorf("failed to connect to listen for queue versions: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = conn.Close(cctx)
		cancel()
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.versionsChannel}.Sanitize()); err != nil {
		return fmt.Errorf("failed to listen for queue versions: %w", err)
	}
	s.versions.invalidate(0, true) // what moved while nobody listened is read again
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("failed to wait for queue versions: %w", err)
		}
		id, err := strconv.ParseInt(n.Payload, 10, 64)
		if err != nil {
			s.versions.invalidate(0, true) // not ours: forget everything, to be safe
			continue
		}
		s.versions.invalidate(id, true)
	}
}
