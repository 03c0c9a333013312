package fakegithub

import (
	"context"
	"fmt"
	"sync"

	"github.com/google/go-github/v66/github"
)

// The simulated CI reports as its own App and bot.
const (
	ciAppID = 424242
	ciLogin = "fake-ci[bot]"
)

// ciRunner runs the simulated CI: jobs are processed in order by one
// goroutine, so a run's pending statuses always precede its results.
type ciRunner struct {
	s        *Server
	opts     CIOptions
	contexts []string
	wake     chan struct{}

	mu   sync.Mutex
	hold bool
	runs []*ciRun
	jobs []*ciJob
	// refused are the App permissions ("actions", "checks") the App is
	// denied (RefusePermission).
	refused map[string]bool
}

// ciRun is one CI run and the check runs it posted.
type ciRun struct {
	CIRun
	repo     *repo
	held     bool
	checkIDs []int64
}

// ciJob starts a run (finish false) or posts its result.
type ciJob struct {
	run    *ciRun
	finish bool
	pass   *bool // forced result; nil = evaluate the tree
	done   chan struct{}
}

func newCIRunner(s *Server, opts CIOptions) *ciRunner {
	contexts := opts.Contexts
	if contexts == nil && len(opts.CheckRuns) == 0 {
		contexts = []string{"ci/test"}
	}
	return &ciRunner{s: s, opts: opts, contexts: contexts, wake: make(chan struct{}, 1)}
}

func ciApp() *github.App {
	return &github.App{ID: github.Int64(ciAppID), Slug: github.String("fake-ci"), Name: github.String("Fake CI")}
}

// SetCIHold makes runs started from now on stay pending until ReleaseCI or
// CompleteCI (true), or complete automatically (false). Runs already held
// stay held.
func (s *Server) SetCIHold(hold bool) {
	s.ci.mu.Lock()
	s.ci.hold = hold
	s.ci.mu.Unlock()
}

// ReleaseCI completes every pending run with its evaluated result and
// waits until the results are posted.
func (s *Server) ReleaseCI() {
	s.ci.mu.Lock()
	var jobs []*ciJob
	for _, run := range s.ci.runs {
		if run.Result == "" {
			jobs = append(jobs, &ciJob{run: run, finish: true, done: make(chan struct{})})
		}
	}
	s.ci.mu.Unlock()
	s.ci.enqueueAndWait(jobs)
}

// CompleteCI completes the pending runs on sha in repo ("owner/name")
// with the given result, waiting until it is posted. It fails if no such
// run is pending.
func (s *Server) CompleteCI(repo, sha string, pass bool) error {
	s.ci.mu.Lock()
	var jobs []*ciJob
	for _, run := range s.ci.runs {
		if run.Result == "" && run.Repo == repo && run.SHA == sha {
			jobs = append(jobs, &ciJob{run: run, finish: true, pass: &pass, done: make(chan struct{})})
		}
	}
	s.ci.mu.Unlock()
	if len(jobs) == 0 {
		return fmt.Errorf("failed to complete CI: no pending run for %s@%s", repo, sha)
	}
	s.ci.enqueueAndWait(jobs)
	return nil
}

// PendingCI lists runs without a result yet.
func (s *Server) PendingCI() []CIRun {
	return s.ci.list(true)
}

// CIRuns lists every run, oldest first, with its result ("" if pending).
func (s *Server) CIRuns() []CIRun {
	return s.ci.list(false)
}

func (ci *ciRunner) list(pendingOnly bool) []CIRun {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	out := []CIRun{}
	for _, run := range ci.runs {
		if !pendingOnly || run.Result == "" {
			out = append(out, run.CIRun)
		}
	}
	return out
}

// trigger registers a run for sha on branch and queues its start. Called
// with r.mu held.
func (ci *ciRunner) trigger(r *repo, branch, sha string) {
	if ci.opts.Disabled || (ci.opts.Silent != nil && ci.opts.Silent(branch, sha)) {
		return
	}
	ci.mu.Lock()
	run := &ciRun{CIRun: CIRun{ID: ci.s.newID(), Repo: r.fullName(), Branch: branch, SHA: sha, Attempt: 1}, repo: r, held: ci.hold}
	ci.runs = append(ci.runs, run)
	ci.mu.Unlock()
	if ci.opts.AtPush != nil {
		ci.opts.AtPush(run.CIRun)
	}
	ci.enqueue(&ciJob{run: run})
}

func (ci *ciRunner) enqueue(j *ciJob) {
	ci.s.idle.add()
	ci.mu.Lock()
	ci.jobs = append(ci.jobs, j)
	ci.mu.Unlock()
	select {
	case ci.wake <- struct{}{}:
	default:
	}
}

func (ci *ciRunner) enqueueAndWait(jobs []*ciJob) {
	for _, j := range jobs {
		ci.enqueue(j)
	}
	for _, j := range jobs {
		select {
		case <-j.done:
		case <-ci.s.closed:
			return
		}
	}
}

// run is the CI worker loop.
func (ci *ciRunner) run(ctx context.Context) {
	for {
		ci.mu.Lock()
		var j *ciJob
		if len(ci.jobs) > 0 {
			j = ci.jobs[0]
			ci.jobs = ci.jobs[1:]
		}
		ci.mu.Unlock()
		if j == nil {
			select {
			case <-ci.wake:
				continue
			case <-ctx.Done():
				ci.drain()
				return
			}
		}
		if j.finish {
			ci.finish(j.run, j.pass)
		} else {
			ci.start(j.run)
		}
		if j.done != nil {
			close(j.done)
		}
		ci.s.idle.done()
	}
}

// drain releases waiters of jobs left when the server closes.
func (ci *ciRunner) drain() {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	for _, j := range ci.jobs {
		if j.done != nil {
			close(j.done)
		}
	}
	ci.jobs = nil
}
