package sim

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mergequeue/mq/queue"
)

// WorldConfig configures a World.
type WorldConfig struct {
	Repo   queue.Repo       // default github.com/sim/repo
	Branch string           // target branch, default "main"
	Checks []string         // required check names reported by CI, default ["ci"]
	Now    func() time.Time // virtual clock (required)
}

// PRSpec describes a pull request to open.
type PRSpec struct {
	Title     string
	Bad       bool  // intrinsically broken: any test commit containing it fails CI
	Conflicts []int // PR numbers whose patches conflict with this one (symmetric)
	// Targets are the build targets the patch touches (parallel mode's
	// impacted targets); AllTargets marks a patch touching every target.
	// They matter only to the landing check in parallel mode (SetParallel).
	Targets    []string
	AllTargets bool
}

// CIJob is one published test commit that CI has to test.
type CIJob struct {
	SHA, Branch string
	// Contains are the PR numbers the test branch merged on top of the
	// target (including the runs it was built on incrementally), in merge
	// order: the PRs under test.
	Contains    []int
	PublishedAt time.Time
}

// World is a simulated GitHub repository with CI, implementing queue.GitHub
// (and queue.AncestryChecker) on an abstract content model, and checking
// the queue's invariants on every merge and publish. It is safe for
// concurrent use; OnPublish callbacks run without the World's lock held.
type World struct {
	mu  sync.Mutex
	cfg WorldConfig

	shaCounter uint64
	commits    map[string]*commit
	patchAdds  map[int][]*commit // patch → the commits that added it
	refs       map[string]string // branch → commit SHA
	prs        map[int]*simPR
	conflicts  map[int][]int // PR → conflicting PRs, sorted
	nextPR     int
	nextExt    int
	nextID     int64

	tests        map[string]*testCommit // published test commits by SHA
	live         map[string]*testCommit // published, not deleted, not reported
	publishSeq   int
	passedByHead map[string][]*testCommit
	checks       map[string][]queue.CheckResult

	merged, mergedByQueue []int
	violations            []string
	inFlightBound         int
	parallel              bool
	parallelFn            func() bool
	fileDiffs             bool
	faults                []MergeFault
	testTimeout           time.Duration
	maxInFlight           int
	calls                 map[string]int
	onPublish             func(CIJob)

	// What the calls would cost on GitHub (world_cost.go).
	requests    GitHubCost
	requestsBy  map[string]GitHubCost
	writeLog    writeLog
	lanes       map[string]string // scratch lane → the commit it points at
	trees       map[string]bool   // commits whose tree the client knows
	nodeIDKnown bool              // the client read the repository's node id
	git         *gitClone         // non-nil: test branches are built with git (SetGitBuilds)
}

// simPR is a pull request of the World.
type simPR struct {
	number      int
	spec        PRSpec
	head        string
	heads       map[string]bool // every head it has had
	open        bool
	merged      bool
	byQueue     bool
	mergeCommit string
}

// testCommit is a published test branch commit and what CI said about it.
type testCommit struct {
	c           *commit
	branch      string
	seq         int
	contains    []int
	publishedAt time.Time
	reported    bool
	passed      bool
	deleted     bool
}

// NewWorld returns a repository whose target branch holds one root commit.
func NewWorld(cfg WorldConfig) *World {
	if cfg.Now == nil {
		panic("sim.NewWorld: WorldConfig.Now is required")
	}
	if cfg.Repo == (queue.Repo{}) {
		cfg.Repo = queue.Repo{Host: queue.DefaultHost, Owner: "sim", Name: "repo"}
	}
	if cfg.Branch == "" {
		cfg.Branch = "main"
	}
	if cfg.Checks == nil {
		cfg.Checks = []string{"ci"}
	}
	cfg.Checks = slices.Clone(cfg.Checks)
	w := &World{
		cfg: cfg, commits: map[string]*commit{}, patchAdds: map[int][]*commit{}, refs: map[string]string{},
		prs: map[int]*simPR{}, conflicts: map[int][]int{}, tests: map[string]*testCommit{},
		live: map[string]*testCommit{}, passedByHead: map[string][]*testCommit{},
		checks: map[string][]queue.CheckResult{}, calls: map[string]int{},
		requestsBy: map[string]GitHubCost{}, lanes: map[string]string{}, trees: map[string]bool{},
	}
	root := w.addCommit(nil, 0, "", kindRoot)
	w.refs[cfg.Branch] = root.sha
	return w
}

// Config returns the World's configuration with defaults applied.
func (w *World) Config() WorldConfig {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.cfg
	c.Checks = slices.Clone(c.Checks)
	return c
}

func (w *World) now() time.Time { return w.cfg.Now().UTC() }

func (w *World) target() *commit { return w.commits[w.refs[w.cfg.Branch]] }

// pr returns PR n or panics: the caller (a simulator) named a PR it never opened.
func (w *World) pr(n int) *simPR {
	p, ok := w.prs[n]
	if !ok {
		panic(fmt.Sprintf("sim: PR #%d was never opened", n))
	}
	return p
}

// OpenPR opens a pull request against the target branch and returns its
// number (1, 2, …). Its head is a new commit: the target plus its patch.
func (w *World) OpenPR(p PRSpec) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.nextPR++
	n := w.nextPR
	p.Conflicts, p.Targets = slices.Clone(p.Conflicts), slices.Clone(p.Targets)
	if p.Title == "" {
		p.Title = fmt.Sprintf("Change %d", n)
	}
	pr := &simPR{number: n, spec: p, open: true, heads: map[string]bool{}}
	w.prs[n] = pr
	for _, o := range p.Conflicts {
		if o == n || slices.Contains(w.conflicts[n], o) {
			continue
		}
		w.conflicts[n] = insertSortedInt(w.conflicts[n], o)
		w.conflicts[o] = insertSortedInt(w.conflicts[o], n)
	}
	w.newHead(pr)
	return n
}

func insertSortedInt(s []int, v int) []int {
	i, _ := slices.BinarySearch(s, v)
	return slices.Insert(s, i, v)
}

func (w *World) newHead(pr *simPR) string {
	c := w.addCommit(w.target(), pr.number, "", kindHead)
	pr.head = c.sha
	pr.heads[c.sha] = true
	return c.sha
}

// PushPR pushes to PR n: a new head SHA with the same patch identity.
func (w *World) PushPR(n int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.newHead(w.pr(n))
}

// ClosePR closes PR n without merging it.
func (w *World) ClosePR(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pr(n).open = false
}

// MergeManually merges PR n on GitHub outside the queue (a human with
// admin rights). It fails if the PR is closed, merged, or conflicts with
// the target branch.
func (w *World) MergeManually(n int) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	pr := w.pr(n)
	if !pr.open || pr.merged {
		return "", fmt.Errorf("failed to merge #%d manually: it is not open", n)
	}
	if other := w.conflictsWith(w.target(), n); other != 0 {
		return "", fmt.Errorf("failed to merge #%d manually: it conflicts with #%d on %s", n, other, w.cfg.Branch)
	}
	return w.land(pr, pr.head, false).sha, nil
}

// land merges pr's patch (from head) into the target branch.
func (w *World) land(pr *simPR, head string, byQueue bool) *commit {
	c := w.addCommit(w.target(), pr.number, head, kindTarget)
	w.refs[w.cfg.Branch] = c.sha
	pr.open, pr.merged, pr.byQueue, pr.mergeCommit = false, true, byQueue, c.sha
	w.merged = append(w.merged, pr.number)
	if byQueue {
		w.mergedByQueue = append(w.mergedByQueue, pr.number)
	}
	return c
}

// PushTarget pushes an unrelated change to the target branch outside the
// queue and returns the new head.
func (w *World) PushTarget() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.nextExt++
	c := w.addCommit(w.target(), -w.nextExt, "", kindTarget)
	w.refs[w.cfg.Branch] = c.sha
	return c.sha
}

// PR returns PR n's current facts as GitHub reports them (for
// Service.OnPullRequest).
func (w *World) PR(n int) queue.PullRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.facts(w.pr(n))
}

// facts is what GitHub says about pr now: mergeable_state "dirty" when its
// patch conflicts with the target, "clean" otherwise, "unknown" once closed.
func (w *World) facts(pr *simPR) queue.PullRequest {
	f := queue.PRFacts{
		Title: pr.spec.Title, Author: "sim-author", HeadSHA: pr.head, BaseBranch: w.cfg.Branch,
		Open: pr.open, Merged: pr.merged, MergeCommitSHA: pr.mergeCommit, MergeableState: "unknown", ReadAt: w.now(),
	}
	if pr.open {
		ok := w.conflictsWith(w.target(), pr.number) == 0
		f.Mergeable = &ok
		f.MergeableState = map[bool]string{true: "clean", false: "dirty"}[ok]
	}
	return queue.PullRequest{Number: pr.number, PRFacts: f}
}

// TargetHead returns the target branch's head commit.
func (w *World) TargetHead() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.target().sha
}

// Dirty reports whether PR n's patch conflicts with the target branch.
func (w *World) Dirty(n int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pr(n)
	return w.conflictsWith(w.target(), n) != 0
}

// Conflicts returns the PRs whose patches conflict with PR n's, sorted.
func (w *World) Conflicts(n int) []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.conflicts[n])
}

// Merged returns the PR numbers merged into the target by anyone, in order.
func (w *World) Merged() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.merged)
}

// MergedByQueue returns the PR numbers merged through MergePullRequest, in order.
func (w *World) MergedByQueue() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.mergedByQueue)
}

// Calls returns how often each queue.GitHub method was called.
func (w *World) Calls() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.calls)
}
