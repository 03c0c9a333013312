package changes

import (
	"sync"
	"sync/atomic"
)

// Versions counts, per queue, the committed writes that may change what
// the queue's reads return: its row (settings, state), its entries, runs,
// impacted targets and events. Stores keep one and report each such write
// once it is committed (Changed), so that a reader can keep what it read
// for as long as Version stays the same. The zero value is ready to use;
// it is safe for concurrent use and Version never blocks on a writer.
type Versions struct {
	all atomic.Uint64
	by  sync.Map // queue ID → *atomic.Uint64
}

// Changed records a committed write to the queue queueID; a queueID of 0
// or less records one that may touch every queue (a queue created or
// deleted, or data of several queues pruned).
func (v *Versions) Changed(queueID int64) {
	if queueID <= 0 {
		v.all.Add(1)
		return
	}
	c, ok := v.by.Load(queueID)
	if !ok {
		c, _ = v.by.LoadOrStore(queueID, new(atomic.Uint64))
	}
	c.(*atomic.Uint64).Add(1)
}

// Version returns the queue's version: it grows with every Changed of the
// queue or of every queue, and never goes back.
func (v *Versions) Version(queueID int64) uint64 {
	n := v.all.Load()
	if c, ok := v.by.Load(queueID); ok {
		n += c.(*atomic.Uint64).Load()
	}
	return n
}
