package service

// TakeOver makes the next Sync of queueID re-read GitHub before it acts: it
// reconciles the queue and reads its branch head afresh. A replica calls it
// when it starts deciding for a queue, or takes one over from another
// replica (issue #18): nothing its memory holds of the queue is assumed
// current.
func (s *Service) TakeOver(queueID int64) {
	s.mu.Lock()
	delete(s.lastReconcile, queueID)
	s.mu.Unlock()
	s.heads.forget(queueID)
}

// forget drops the queue's remembered head.
func (c *headCache) forget(queueID int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.by, queueID)
}
