package service

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mergequeue/mq/queue"
)

// maxSweepsPerInterval bounds the sweeps (each a listing of a repository's
// mq- branches on GitHub per prefix, usually two) the reconciler starts in
// one reconcile interval: a start-up over 10,000 repositories spreads over
// 200 intervals (100 minutes at 30 s, some 6,000 listings an hour) instead
// of asking GitHub for 20,000 listings at once, ahead of every other
// request of the installation.
const maxSweepsPerInterval = 50

// sweepBook is the reconciler's schedule of sweeps: which repositories'
// mq- branches are to be listed on GitHub, to delete those nothing
// recorded (a branch left behind by a crash, whatever its moment).
//
// Every repository with a queue is owed one at start-up, and again when
// this process takes the reconciler's role. After that, a repository is
// owed one only where a queue does something: the queue creates branches
// only for its runs, and records each before it creates it, so a
// repository with no active queue and no recorded run branch (a queue that
// is idle, however many) has gained no branch of the queue's since it was
// last swept. A repository is owed a sweep while it has an active queue
// or a recorded run branch (busy: at most one sweep per interval) and
// once more after that, when it is no longer busy; and when this process
// dropped the records of some of its branches (oweSweep). At most
// maxSweepsPerInterval sweeps start in an interval, the busy repositories
// first. Besides, a patrol sweeps the
// repositories with a queue one per interval in turn (nextPatrol). It
// lives in memory and is safe to lose: a restart sweeps every repository.
type sweepBook struct {
	mu sync.Mutex
	// startup is set while every repository with a queue is yet to be
	// owed a sweep: until the pass after a start-up or a take-over of the
	// role has listed the queues.
	startup bool
	// owed are the repositories (folded) owed a sweep.
	owed map[queue.Repo]*owedSweep
	// swept is when each repository was last swept (kept for an interval,
	// or while owed).
	swept map[queue.Repo]time.Time
	// windowStart and inWindow pace the sweeps: how many started since
	// windowStart, which moves on every interval.
	windowStart time.Time
	inWindow    int
	// patrol is what is left of the patrol's round over every repository
	// with a queue (sorted), and patrolAt when its last sweep began: the
	// patrol sweeps one repository per interval (see nextPatrol).
	patrol   []owedSweep
	patrolAt time.Time
}

// owedSweep is a repository owed a sweep and the prefixes to list there
// (the scratch prefix and the test branch prefix of each queue that made
// it owed).
type owedSweep struct {
	repo     queue.Repo
	prefixes []string
	// busy is set when the repository was busy at the pass that chose it.
	busy bool
	// gen moves each time the repository is owed again: a sweep that
	// began before forgives nothing owed since.
	gen uint64
}

func newSweepBook() *sweepBook {
	return &sweepBook{startup: true, owed: map[queue.Repo]*owedSweep{}, swept: map[queue.Repo]time.Time{}}
}

// restart owes a sweep to every repository again, at the next pass (a
// start-up or a take-over of the reconciler's role).
func (b *sweepBook) restart() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.startup = true
}

// startingUp reports whether every repository with a queue is yet to be
// owed a sweep.
func (b *sweepBook) startingUp() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.startup
}

// started owes a sweep, due now, to the repository of every queue, and
// begins the patrol's round over them.
func (b *sweepBook) started(queues []*queue.Queue) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.startup = false
	clear(b.swept)
	for _, q := range queues {
		b.oweLocked(q.Key.Repo, q.Settings.EffectiveTestBranchPrefix())
	}
	b.patrol = patrolRound(queues)
}

// patrolRound returns the repositories of queues, each with its prefixes
// (the scratch one and its queues' test prefixes), in the order of their
// full names.
func patrolRound(queues []*queue.Queue) []owedSweep {
	byRepo := sweepsByRepo(queues)
	round := make([]owedSweep, 0, len(byRepo))
	for _, o := range byRepo {
		round = append(round, *o)
	}
	slices.SortFunc(round, func(x, y owedSweep) int { return compareRepos(x.repo.Fold(), y.repo.Fold()) })
	return round
}

// sweepsByRepo returns a sweep per repository of queues (keys folded),
// each of the scratch prefix and those queues' test branch prefixes.
func sweepsByRepo(queues []*queue.Queue) map[queue.Repo]*owedSweep {
	byRepo := map[queue.Repo]*owedSweep{}
	for _, q := range queues {
		folded := q.Key.Repo.Fold()
		o := byRepo[folded]
		if o == nil {
			o = &owedSweep{repo: q.Key.Repo, prefixes: []string{queue.ScratchPrefix}}
			byRepo[folded] = o
		}
		if p := q.Settings.EffectiveTestBranchPrefix(); !slices.Contains(o.prefixes, p) {
			o.prefixes = append(o.prefixes, p)
		}
	}
	return byRepo
}

// patrolDue reports whether the patrol may sweep a repository now: the
// start-up's sweeps are all owed, its last sweep began an interval ago or
// more, and the pace leaves room. needRound is set when its round is over
// (a new one is to be listed: patrolFrom).
func (b *sweepBook) patrolDue(now time.Time, every time.Duration) (due, needRound bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.startup || b.inWindow >= maxSweepsPerInterval {
		return false, false
	}
	if !b.patrolAt.IsZero() && withinInterval(b.patrolAt, now, every) {
		return false, false
	}
	return true, len(b.patrol) == 0
}

// withinInterval reports whether at is less than every before now (and not after
// it: a clock set back counts as a new interval).
func withinInterval(at, now time.Time, every time.Duration) bool {
	return now.Sub(at) < every && !now.Before(at)
}

// patrolFrom begins a new round of the patrol over queues' repositories.
func (b *sweepBook) patrolFrom(queues []*queue.Queue) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.patrol = patrolRound(queues)
}

// nextPatrol returns the patrol's next sweep, counted as started: the
// next repository of its round that is neither owed a sweep (made anyway)
// nor swept in the last interval. The patrol is the safety net of the
// schedule: a branch created without a record (none of ours is, but a
// writer cut off in the middle of a request, or frozen, cannot be ruled
// out) in a repository that went quiet after its last sweep is found
// within one round, however long the repository stays idle. Its cost is
// one repository's listing per interval, whatever the number of
// repositories.
func (b *sweepBook) nextPatrol(now time.Time, every time.Duration) (owedSweep, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.patrol) > 0 {
		s := b.patrol[0]
		b.patrol = b.patrol[1:]
		folded := s.repo.Fold()
		if b.owed[folded] != nil {
			continue
		}
		if at, ok := b.swept[folded]; ok && withinInterval(at, now, every) {
			continue
		}
		b.patrolAt = now
		b.inWindow++
		return s, true
	}
	return owedSweep{}, false
}

// owe owes repo a sweep of the scratch prefix and prefix ("": the scratch
// prefix alone).
func (b *sweepBook) owe(repo queue.Repo, prefix string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.oweLocked(repo, prefix)
}

func (b *sweepBook) oweLocked(repo queue.Repo, prefix string) {
	folded := repo.Fold()
	o := b.owed[folded]
	if o == nil {
		o = &owedSweep{repo: repo, prefixes: []string{queue.ScratchPrefix}}
		b.owed[folded] = o
	}
	o.gen++
	if prefix != "" && !slices.Contains(o.prefixes, prefix) {
		o.prefixes = append(o.prefixes, prefix)
	}
}

// due returns the sweeps to make now, each a copy of what is owed: the
// owed repositories not swept in the last interval, the busy ones (keys
// folded) first and then those owed longest, as many as the pace allows
// (each counted as started).
func (b *sweepBook) due(now time.Time, every time.Duration, busy map[queue.Repo]bool) []owedSweep {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !withinInterval(b.windowStart, now, every) {
		b.windowStart, b.inWindow = now, 0
	}
	for f, at := range b.swept {
		if now.Sub(at) >= every && b.owed[f] == nil {
			delete(b.swept, f)
		}
	}
	var out []owedSweep
	for f, o := range b.owed {
		if at, ok := b.swept[f]; ok && withinInterval(at, now, every) {
			continue
		}
		c := *o
		c.prefixes = slices.Clone(o.prefixes)
		c.busy = busy[f]
		out = append(out, c)
	}
	slices.SortFunc(out, func(x, y owedSweep) int {
		if x.busy != y.busy {
			if x.busy {
				return -1
			}
			return 1
		}
		if c := b.swept[x.repo.Fold()].Compare(b.swept[y.repo.Fold()]); c != 0 {
			return c
		}
		return strings.Compare(x.repo.Fold().FullName(), y.repo.Fold().FullName())
	})
	n := max(min(len(out), maxSweepsPerInterval-b.inWindow), 0)
	b.inWindow += n
	return out[:n]
}

// done records the sweep s made at now. A repository busy when it was
// chosen stays owed (swept again after an interval); one that was not is
// owed nothing more, unless it was owed again meanwhile.
func (b *sweepBook) done(s owedSweep, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	folded := s.repo.Fold()
	b.swept[folded] = now
	if o := b.owed[folded]; o != nil && !s.busy && o.gen == s.gen {
		delete(b.owed, folded)
	}
}

// oweSweep owes repo a sweep of the scratch prefix and prefix at the next
// pass the pace allows: this process dropped the records of branches
// there that may still exist (a queue deleted, its records with it). The
// store tells the reconciler of the rest (an active queue, a recorded run
// branch).
func (r *Reconciler) oweSweep(repo queue.Repo, prefix string) {
	r.sweeps.owe(repo, prefix)
}
