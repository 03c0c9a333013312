package sim

// speculative is the prefix-speculation queue of GitHub's merge queue,
// GitLab merge trains and Zuul (background note §C3 B3, B4): the first
// `window` queued PRs are tested at once, PR i on the target branch plus
// PRs 1..i. The head merges when its run passed; when the head's run
// failed it is rejected and every run behind it (they all contained it)
// is cancelled and rebuilt without it. A run behind the head that fails
// waits until everything ahead is decided; as GitHub's merge queue and
// Zuul do, nothing is scheduled behind a failed run meanwhile and the runs
// already behind it (which contain it, so are most likely doomed) are
// cancelled. They are rebuilt when the failed PR is decided: rejected when
// it reaches the head, or retested without what failed ahead of it.
//
// With adaptive set it is Zuul's dependent pipeline: the window starts at
// `window`, grows by one per merge and halves (not below floor) per
// rejection. With rounds set (validation only) runs start together in
// synchronous rounds: a new round starts only when every run of the last
// one has ended, which is the model of the closed form
// merges/round = (1−p)(1−(1−p)^k)/p.
type speculative struct {
	h        *harness
	window   int
	floor    int
	adaptive bool
	rounds   bool
	queue    []int
	runs     map[int]*ciBuild // PR → its run (of itself on the prefix ahead)
}

func newSpeculative(h *harness, window, floor int, adaptive, rounds bool) *speculative {
	return &speculative{h: h, window: max(window, 1), floor: max(floor, 1), adaptive: adaptive,
		rounds: rounds, runs: map[int]*ciBuild{}}
}

func (s *speculative) arrive(i int) {
	s.queue = append(s.queue, i)
	s.fill()
}

// fill starts runs for the first window PRs that have none.
func (s *speculative) fill() {
	if s.rounds {
		if len(s.runs) > 0 {
			return
		}
		if len(s.queue) > 0 {
			s.h.rec.Rounds++
		}
	}
	for k := 0; k < min(s.window, len(s.queue)); k++ {
		i := s.queue[k]
		if b := s.runs[i]; b != nil {
			if !s.rounds && b.done && !b.pass {
				return // nothing starts behind a failed run
			}
			continue
		}
		s.runs[i] = s.h.test(s.queue[:k+1], false, s.finished)
	}
}

// finished handles the end of a run: a failed run behind the head cancels
// the runs behind it (outside validation rounds), then the head settles.
func (s *speculative) finished(b *ciBuild) {
	if !b.pass && !s.rounds {
		s.cancelBehind(b.prs[len(b.prs)-1])
	}
	s.settle()
}

// cancelBehind cancels the runs of the PRs queued behind PR i.
func (s *speculative) cancelBehind(i int) {
	behind := false
	for _, j := range s.queue {
		if behind {
			if r := s.runs[j]; r != nil {
				s.h.cancel(r)
				delete(s.runs, j)
			}
		}
		behind = behind || j == i
	}
}

// settle merges or rejects from the head while the head's run has ended.
func (s *speculative) settle() {
	if s.rounds {
		for _, b := range s.runs {
			if !b.done {
				return // the round is not over
			}
		}
	}
	for len(s.queue) > 0 {
		head := s.queue[0]
		b := s.runs[head]
		if b == nil || !b.done {
			break
		}
		delete(s.runs, head)
		s.queue = s.queue[1:]
		if b.pass {
			s.h.merge(head)
			if s.adaptive {
				s.window++
			}
			continue
		}
		s.h.reject(head)
		if s.adaptive {
			s.window = max(s.window/2, s.floor)
		}
		for i, r := range s.runs { // every run behind contained the head
			s.h.cancel(r)
			delete(s.runs, i)
		}
	}
	if s.rounds {
		for i, b := range s.runs { // ended runs past the first failure are discarded
			if b.done {
				delete(s.runs, i)
			}
		}
	}
	s.fill()
}
