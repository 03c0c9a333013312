package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
)

var _ queue.GitHub = (*World)(nil)

// TestBranchPrefix marks the branches whose publication is a test run: CI
// runs on them and OnPublish is told. The simulated queues use the
// default prefix.
const TestBranchPrefix = queue.DefaultTestBranchPrefix

// errWorldNotFound is a 404 from the simulated GitHub.
var errWorldNotFound = errors.New("not found (404)")

// enter counts a call of method, charges its fixed cost (fixedCosts) and
// checks the repository; the caller holds the lock.
func (w *World) enter(method string, repo queue.Repo) error {
	w.calls[method]++
	w.spend(method, fixedCosts[method])
	if repo != w.cfg.Repo {
		return fmt.Errorf("%s: repository %s: %w", method, repo, errWorldNotFound)
	}
	return nil
}

// GetPullRequest reads a PR (queue.ErrPRNotFound if absent).
func (w *World) GetPullRequest(_ context.Context, repo queue.Repo, number int) (*queue.PullRequest, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("GetPullRequest", repo); err != nil {
		return nil, err
	}
	pr, ok := w.prs[number]
	if !ok {
		return nil, fmt.Errorf("failed to read #%d: %w", number, queue.ErrPRNotFound)
	}
	f := w.facts(pr)
	return &f, nil
}

// BranchHead returns the commit a branch points at.
func (w *World) BranchHead(_ context.Context, repo queue.Repo, branch string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("BranchHead", repo); err != nil {
		return "", err
	}
	sha, ok := w.refs[branch]
	if !ok {
		return "", fmt.Errorf("failed to read branch %s: %w", branch, errWorldNotFound)
	}
	return sha, nil
}

// RequiredChecks returns the configured checks for the target branch (none
// for other branches).
func (w *World) RequiredChecks(_ context.Context, repo queue.Repo, branch string) ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("RequiredChecks", repo); err != nil {
		return nil, err
	}
	if branch != w.cfg.Branch {
		return nil, nil
	}
	return slices.Clone(w.cfg.Checks), nil
}

// BuildBranch starts from spec.From and merges each head in order, one merge
// commit per head: a head must be one its PR has or had; a patch that
// conflicts with the content so far is a *queue.ConflictError; a patch
// already contained merges as a no-op. The result is published as spec.Name
// (a fresh SHA); names under TestBranchPrefix are test runs, which CI picks
// up and OnPublish is told of (after the lock is released). The branches of
// spec.Delete are deleted in the same request, all or none as with GitHub's
// updateRefs: when one of them is missing, none is (Built.Deleted is
// empty) and spec.Name is published alone. A lane (spec.KeepTemp) is
// followed only for what the build costs (buildCost); it is no branch.
func (w *World) BuildBranch(ctx context.Context, repo queue.Repo, spec queue.BranchSpec) (queue.Built, error) {
	w.mu.Lock()
	var deleted []string
	sha, job, err := w.build(repo, spec, &deleted)
	onPublish := w.onPublish
	w.mu.Unlock()
	if err != nil {
		return queue.Built{}, err
	}
	// CI learns of the branch only through onPublish: telling Publishing
	// first is, for the queue, telling it before the publish.
	if spec.Name != "" && spec.Publishing != nil {
		if err := spec.Publishing(ctx, sha); err != nil {
			return queue.Built{}, fmt.Errorf("failed to build %s: %w", spec.Name, err)
		}
	}
	if job != nil && onPublish != nil {
		onPublish(*job)
	}
	return queue.Built{SHA: sha, Deleted: deleted}, nil
}

func (w *World) build(repo queue.Repo, spec queue.BranchSpec, deleted *[]string) (string, *CIJob, error) {
	f := buildFacts{spec: spec, laneAt: w.lanes[spec.Temp], nodeIDKnown: w.nodeIDKnown}
	defer func() {
		w.spend("BuildBranch", w.buildCostOf(f))
		w.nodeIDKnown = w.nodeIDKnown || f.published && len(spec.Delete) > 0
	}()
	if err := w.enter("BuildBranch", repo); err != nil {
		return "", nil, err
	}
	if spec.Name == w.cfg.Branch {
		return "", nil, fmt.Errorf("failed to build %s: refusing to overwrite the target branch", spec.Name)
	}
	cur, ok := w.commits[spec.From]
	if !ok {
		return "", nil, fmt.Errorf("failed to build %s: commit %s: %w", spec.Name, spec.From, errWorldNotFound)
	}
	if spec.KeepTemp {
		defer func() { w.lanes[spec.Temp] = cur.sha }() // where the last merge left it
	}
	for i, h := range spec.Heads {
		pr, ok := w.prs[h.PRNumber]
		if !ok || !pr.heads[h.SHA] {
			return "", nil, fmt.Errorf("failed to build %s: %s is not a head of #%d: %w", spec.Name, h.SHA, h.PRNumber, errWorldNotFound)
		}
		f.merges++
		if w.conflictsWith(cur, h.PRNumber) != 0 {
			return "", nil, &queue.ConflictError{Index: i, SHA: h.SHA}
		}
		cur = w.addCommit(cur, h.PRNumber, h.SHA, kindBuilt)
	}
	if len(spec.Heads) == 0 {
		cur = w.addCommit(cur, 0, "", kindBuilt)
	} else {
		w.trees[cur.sha] = true // the last merge's answer names its tree
	}
	if spec.Name == "" { // a probe: merged on the scratch lane, published nowhere
		return cur.sha, nil, nil
	}
	// The ended branches go in the same request as the publish (GitHub's
	// updateRefs is atomic): no moment sees both, and one that is missing
	// makes GitHub refuse them all.
	f.published = true
	old, exists := w.refs[spec.Name]
	f.nameExists = exists
	for _, name := range spec.Delete {
		if _, ok := w.refs[name]; !ok || name == w.cfg.Branch {
			f.deleteRefused = true
		}
	}
	for _, name := range spec.Delete {
		if !f.deleteRefused && w.deleteRef(name) == nil {
			*deleted = append(*deleted, name)
		}
	}
	w.refs[spec.Name] = cur.sha
	if t := w.tests[old]; t != nil && t.branch == spec.Name {
		w.unpublish(t)
	}
	if !strings.HasPrefix(spec.Name, TestBranchPrefix) {
		return cur.sha, nil, nil
	}
	job := w.publish(cur, spec.Name)
	return cur.sha, &job, nil
}

// DeleteBranch deletes a branch; a missing one is not an error. CI results
// on its commit stay recordable.
func (w *World) DeleteBranch(_ context.Context, repo queue.Repo, name string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("DeleteBranch", repo); err != nil {
		return err
	}
	return w.deleteRef(name)
}

// DeleteBranches deletes branches in one call (queue.BranchBatchDeleter),
// charged as the client's batches (deleteBatchCost): a batch with a
// missing branch is refused by GitHub and deleted one branch at a time,
// with the same result.
func (w *World) DeleteBranches(_ context.Context, repo queue.Repo, names []string) ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("DeleteBranches", repo); err != nil {
		return nil, err
	}
	var done []string
	for rest := names; len(rest) > 0; {
		batch := rest[:min(len(rest), maxRefUpdates)]
		rest = rest[len(batch):]
		refused := false
		for _, name := range batch {
			if _, ok := w.refs[name]; !ok {
				refused = true
			}
		}
		w.spend("DeleteBranches", deleteBatchCost(len(batch), refused, w.nodeIDKnown))
		w.nodeIDKnown = true
		for _, name := range batch {
			if err := w.deleteRef(name); err != nil {
				return done, err
			}
			done = append(done, name)
		}
	}
	return done, nil
}

// deleteRef deletes a branch (a missing one is not an error); the caller
// holds w.mu.
func (w *World) deleteRef(name string) error {
	if name == w.cfg.Branch {
		return fmt.Errorf("failed to delete %s: it is the target branch", name)
	}
	sha, ok := w.refs[name]
	if !ok {
		return nil
	}
	delete(w.refs, name)
	if t := w.tests[sha]; t != nil && t.branch == name {
		w.unpublish(t)
	}
	return nil
}

// Checks returns what ReportCI recorded on a commit.
func (w *World) Checks(_ context.Context, repo queue.Repo, sha string) ([]queue.CheckResult, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("Checks", repo); err != nil {
		return nil, err
	}
	return slices.Clone(w.checks[sha]), nil
}

// TreeSHA returns a commit's tree: equal trees mean equal content.
func (w *World) TreeSHA(_ context.Context, repo queue.Repo, sha string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("TreeSHA", repo); err != nil {
		return "", err
	}
	w.spend("TreeSHA", treeCost(w.trees[sha]))
	c, ok := w.commits[sha]
	if !ok {
		return "", fmt.Errorf("failed to read commit %s: %w", sha, errWorldNotFound)
	}
	w.trees[sha] = true
	return c.tree(), nil
}

// MergePullRequest merges a PR into the target branch: a closed or merged
// PR is refused (405), a head other than req.SHA is queue.ErrHeadMoved, a
// patch that conflicts with the target is refused (405). A merge that lands
// is checked against the invariants (see Violations). Faults armed with
// FailNextMerges apply first.
func (w *World) MergePullRequest(_ context.Context, repo queue.Repo, number int, req queue.MergeRequest) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("MergePullRequest", repo); err != nil {
		return "", err
	}
	pr, ok := w.prs[number]
	if !ok {
		return "", fmt.Errorf("failed to merge #%d: %w", number, queue.ErrPRNotFound)
	}
	fault := w.nextFault()
	switch fault {
	case FaultBaseModified:
		return "", fmt.Errorf("failed to merge #%d: %w", number, queue.ErrBaseModified)
	case FaultTransient:
		return "", fmt.Errorf("failed to merge #%d: 502 Bad Gateway: %w", number, queue.ErrTransient)
	}
	if pr.merged && pr.byQueue {
		w.violate("the queue tried to merge #%d (head %s) a second time", number, shortSHA(req.SHA))
	}
	if !pr.open {
		return "", &queue.RejectedError{Status: 405, Message: "Pull Request is not mergeable"}
	}
	if req.SHA != pr.head {
		return "", fmt.Errorf("failed to merge #%d: head is %s, not %s: %w", number, shortSHA(pr.head), shortSHA(req.SHA), queue.ErrHeadMoved)
	}
	if other := w.conflictsWith(w.target(), number); other != 0 {
		return "", &queue.RejectedError{Status: 405, Message: fmt.Sprintf("Pull Request is not mergeable: conflicts with #%d", other)}
	}
	c := w.land(pr, req.SHA, true)
	w.checkMerge(pr, req.SHA, c)
	if fault == FaultAppliedThenTransient {
		return "", fmt.Errorf("failed to merge #%d: 502 Bad Gateway after the merge: %w", number, queue.ErrTransient)
	}
	return c.sha, nil
}

// Permission reports "write" for everyone.
func (w *World) Permission(_ context.Context, repo queue.Repo, _ string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("Permission", repo); err != nil {
		return "", err
	}
	return "write", nil
}

// UpsertComment returns id, or a new id when id is 0 (the body is dropped).
func (w *World) UpsertComment(_ context.Context, repo queue.Repo, _ int, id int64, _ string) (int64, error) {
	return w.upsert("UpsertComment", repo, id)
}

// AddReaction does nothing.
func (w *World) AddReaction(_ context.Context, repo queue.Repo, _ int64, _ string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.enter("AddReaction", repo)
}

// UpsertCheckRun returns id, or a new id when id is 0 (the run is dropped).
func (w *World) UpsertCheckRun(_ context.Context, repo queue.Repo, id int64, _ queue.CheckRun) (int64, error) {
	return w.upsert("UpsertCheckRun", repo, id)
}

func (w *World) upsert(method string, repo queue.Repo, id int64) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter(method, repo); err != nil {
		return 0, err
	}
	if id != 0 {
		return id, nil
	}
	w.nextID++
	return w.nextID, nil
}

func shortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// FindComment finds nothing: the world keeps no comment bodies.
func (w *World) FindComment(_ context.Context, repo queue.Repo, _ int, _ string, _ time.Time) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return 0, w.enter("FindComment", repo)
}

// FindCheckRun finds nothing: the world keeps no check runs.
func (w *World) FindCheckRun(_ context.Context, repo queue.Repo, _, _, _ string) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return 0, w.enter("FindCheckRun", repo)
}

// ListBranches returns the branches starting with prefix, by name.
func (w *World) ListBranches(_ context.Context, repo queue.Repo, prefix string) ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("ListBranches", repo); err != nil {
		return nil, err
	}
	var out []string
	for name := range w.refs {
		if strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	w.spend("ListBranches", listCost(len(out)))
	return out, nil
}
