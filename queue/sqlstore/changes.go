package sqlstore

// changeSink learns of committed (outside a transaction) or pending
// (inside one) writes that readers keep copies of: a queue's reads
// (queueID ≤ 0 means every queue's) and API tokens.
type changeSink interface {
	Changed(queueID int64)
	TokensChanged()
}

// storeChanges reports a Store's committed writes at once.
type storeChanges struct{ s *Store }

func (c storeChanges) Changed(queueID int64) { c.s.versions.Changed(queueID) }
func (c storeChanges) TokensChanged()        { c.s.tokens.changed() }

// pendingChanges holds a transaction's changes until it commits; a
// rolled-back transaction's are dropped.
type pendingChanges struct {
	ids    []int64
	tokens bool
}

// Changed records a write of the transaction to a queue's reads.
func (p *pendingChanges) Changed(queueID int64) { p.ids = append(p.ids, queueID) }

// TokensChanged records a token write of the transaction.
func (p *pendingChanges) TokensChanged() { p.tokens = true }

// apply reports the committed transaction's writes to s.
func (p *pendingChanges) apply(s *Store) {
	for _, id := range p.ids {
		s.versions.Changed(id)
	}
	if p.tokens {
		s.tokens.changed()
	}
}

// changed reports a write to queueID's reads (≤ 0: every queue's). A store
// built without a sink (tests of migrations) reports nothing.
func (o *ops) changed(queueID int64) {
	if o.chg != nil {
		o.chg.Changed(queueID)
	}
}

// tokensChanged reports a token write.
func (o *ops) tokensChanged() {
	if o.chg != nil {
		o.chg.TokensChanged()
	}
}

// QueueVersion returns a number that grows with every committed write that
// may change what the reads of queue queueID return: its row, its entries,
// runs, impacted targets and events, and the creation or deletion of any
// queue. Writes made by another process are not counted. It never blocks.
func (s *Store) QueueVersion(queueID int64) uint64 { return s.versions.Version(queueID) }
