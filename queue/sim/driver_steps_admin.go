package sim

import (
	"errors"

	"github.com/mergequeue/mq/queue"
)

// The steps below act on the queue and the repository around the PRs:
// manual merges, pushes to the target, restarts, queue state and mode,
// merge faults, CI on PR heads, impacted targets.

// stepManualMerge merges a random open, good, clean PR outside the queue
// (a Bad one would break the target branch for everyone).
func (d *Driver) stepManualMerge() bool {
	n, ok := pick(d.rng, d.openPRs(func(p *drivenPR) bool { return !p.bad && !d.world.Dirty(p.n) }))
	if !ok {
		return false
	}
	d.prs[n].excuse("merged manually")
	active := false
	if e := d.entry(n); e != nil && e.Active() {
		active = true
	}
	sha, err := d.world.MergeManually(n)
	if err != nil {
		d.fail("MergeManually #%d: %v", n, err)
		return true
	}
	d.logf("merge #%d manually → %s", n, shortSHA(sha))
	// Told at once, the queue must end the entry merged_manually; with the
	// webhook lost it may act on stale facts until it reconciles (though it
	// must never merge or claim the PR: see check).
	d.prs[n].mergedActive = d.prEvent(n) && active
	d.pushEvent(sha)
	return true
}

func (d *Driver) pushEvent(sha string) {
	if d.lost() {
		d.logf("  (push webhook lost)")
		return
	}
	cfg := d.world.Config()
	if err := d.svc.OnPush(d.ctx, cfg.Repo, cfg.Branch, "", sha); err != nil {
		d.fail("OnPush: %v", err)
	}
}

// stepTargetPush pushes an unrelated change to the target branch.
func (d *Driver) stepTargetPush() bool {
	sha := d.world.PushTarget()
	d.logf("push to %s → %s", d.world.Config().Branch, shortSHA(sha))
	d.pushEvent(sha)
	return true
}

// stepRestart restarts the tests of a random admitted entry.
func (d *Driver) stepRestart() bool {
	var admitted []*queue.Entry
	for _, e := range d.active() {
		if e.Admitted() {
			admitted = append(admitted, e)
		}
	}
	e, ok := pick(d.rng, admitted)
	if !ok {
		return false
	}
	d.logf("restart #%d (%s)", e.PRNumber, e.State)
	cfg := d.world.Config()
	_, err := d.svc.Restart(d.ctx, queue.QueueKey{Repo: cfg.Repo, Branch: cfg.Branch}, e.PRNumber)
	var input *queue.InputError
	if err != nil && !errors.As(err, &input) {
		d.fail("Restart #%d: %v", e.PRNumber, err)
	}
	return true
}

// queueKey is the key of the driven queue.
func (d *Driver) queueKey() queue.QueueKey {
	cfg := d.world.Config()
	return queue.QueueKey{Repo: cfg.Repo, Branch: cfg.Branch}
}

// stepQueueState pauses (40%), drains (20%) or resumes (40%) the queue.
func (d *Driver) stepQueueState() bool {
	st := []queue.QueueState{queue.QueuePaused, queue.QueuePaused, queue.QueueDraining, queue.QueueRunning, queue.QueueRunning}[d.rng.IntN(5)]
	d.setState(st)
	return true
}

func (d *Driver) setState(st queue.QueueState) {
	q, err := d.svc.UpdateQueue(d.ctx, d.queueKey(), queue.QueueUpdate{State: &st})
	if err != nil {
		d.fail("UpdateQueue state %s: %v", st, err)
		return
	}
	d.logf("queue state %s → %s", st, q.State)
	if q.State == queue.QueuePaused && d.pausedMerges < 0 {
		d.pausedMerges = len(d.world.MergedByQueue())
	}
}

// stepMode switches the queue to the other mode.
func (d *Driver) stepMode() bool {
	q := d.queue()
	if q == nil {
		return true
	}
	m := queue.ModeParallel
	if q.EffectiveMode() == queue.ModeParallel {
		m = queue.ModeSingle
	}
	got, err := d.svc.UpdateQueue(d.ctx, d.queueKey(), queue.QueueUpdate{Mode: &m})
	if err != nil {
		d.fail("UpdateQueue mode %s: %v", m, err)
		return true
	}
	d.logf("mode → %s (state %s, mode %s, pending %q)", m, got.State, got.Settings.Mode, got.PendingMode)
	return true
}

// stepMergeFault arms a fault for one of the next merges (at most two
// pending, so no entry runs out of merge attempts).
func (d *Driver) stepMergeFault() bool {
	if d.world.PendingFaults() >= 2 {
		return false
	}
	f := []MergeFault{FaultBaseModified, FaultTransient, FaultAppliedThenTransient}[d.rng.IntN(3)]
	d.world.FailNextMerges(f)
	d.faulted = true
	d.logf("arm merge fault: %s", f)
	return true
}

// stepHeadCI reports CI on a random open PR's head (what direct merges
// rely on): its intrinsic result.
func (d *Driver) stepHeadCI() bool {
	n, ok := pick(d.rng, d.openPRs(func(p *drivenPR) bool { return p.submitted }))
	if !ok {
		return false
	}
	head := d.world.PR(n).HeadSHA
	pass, lost := d.world.Intrinsic(head), d.lost()
	d.logf("CI on #%d head %s: pass %v (webhook lost %v)", n, shortSHA(head), pass, lost)
	d.reportCI(head, pass, lost)
	return true
}

// stepTargets uploads a random submitted PR's targets for its current head.
func (d *Driver) stepTargets() bool {
	n, ok := pick(d.rng, d.openPRs(func(p *drivenPR) bool { return p.submitted }))
	if !ok {
		return false
	}
	d.logf("upload targets of #%d", n)
	d.uploadTargets(n)
	return true
}
