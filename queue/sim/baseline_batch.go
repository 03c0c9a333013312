package sim

// batchQueue is bors-style batching with sequential bisection: one build at
// a time tests everything waiting (up to max PRs) on the target branch; a
// passing batch merges whole; a failing batch of n > 1 is split into its
// first n/2 and the rest, which are tested one after the other, ahead of
// anything that arrived meanwhile; a failing single PR is rejected. With
// max = 1 it is the serial FIFO queue (background note §C3 B1, B2).
type batchQueue struct {
	h       *harness
	max     int
	waiting []int
	split   [][]int // halves still to test, in order, ahead of waiting
	current *ciBuild
}

func newBatchQueue(h *harness, limit int) *batchQueue {
	return &batchQueue{h: h, max: max(limit, 1)}
}

func (q *batchQueue) arrive(i int) {
	q.waiting = append(q.waiting, i)
	q.next()
}

// next starts the next batch when nothing is testing.
func (q *batchQueue) next() {
	if q.current != nil {
		return
	}
	var batch []int
	switch {
	case len(q.split) > 0:
		batch, q.split = q.split[0], q.split[1:]
	case len(q.waiting) > 0:
		n := min(len(q.waiting), q.max)
		batch = append([]int(nil), q.waiting[:n]...)
		q.waiting = q.waiting[n:]
	default:
		return
	}
	q.current = q.h.test(batch, false, q.done)
}

func (q *batchQueue) done(b *ciBuild) {
	q.current = nil
	switch {
	case b.pass:
		for _, i := range b.prs {
			q.h.merge(i)
		}
	case len(b.prs) == 1:
		q.h.reject(b.prs[0])
	default:
		half := len(b.prs) / 2
		q.split = append([][]int{b.prs[:half], b.prs[half:]}, q.split...)
	}
	q.next()
}
