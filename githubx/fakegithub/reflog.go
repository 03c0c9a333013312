package fakegithub

import (
	"fmt"
	"time"
)

// maxRefLog bounds the ref changes a repository keeps (the oldest go).
const maxRefLog = 10000

// RefChange is one change of a ref, as moveRef made it.
type RefChange struct {
	At    time.Time
	Ref   string
	Old   string // "" = created
	New   string // "" = deleted
	Actor string
}

// String is the change in one line, with the time to the millisecond (to
// be matched with request logs).
func (c RefChange) String() string {
	what := "moved"
	switch {
	case c.Old == "":
		what = "created"
	case c.New == "":
		what = "deleted"
	}
	return fmt.Sprintf("%s %s %s by %s (%.7s -> %.7s)", c.At.Format("15:04:05.000"), c.Ref, what, c.Actor, c.Old, c.New)
}

// logRef records a change of a ref. Caller holds r.mu.
func (r *repo) logRef(ref, old, next, actor string) {
	if len(r.refLog) >= maxRefLog {
		r.refLog = r.refLog[1:]
	}
	r.refLog = append(r.refLog, RefChange{At: time.Now(), Ref: ref, Old: old, New: next, Actor: actor})
}

// RefHistory lists the changes of ref ("refs/heads/x") in a repository,
// oldest first: for a test to say how a branch it did not expect came
// and went.
func (s *Server) RefHistory(owner, name, ref string) []RefChange {
	r, err := s.repo(owner, name)
	if err != nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []RefChange
	for _, c := range r.refLog {
		if c.Ref == ref {
			out = append(out, c)
		}
	}
	return out
}
