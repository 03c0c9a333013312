package sim

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/mergequeue/mq/queue"
)

// stepKinds are the random events, with their weights.
var stepKinds = []struct {
	name   string
	weight int
	run    func(d *Driver) bool // false: nothing to do, another kind is drawn
}{
	{"open", 24, (*Driver).stepOpen},
	{"ci", 30, (*Driver).stepCI},
	{"clock", 12, (*Driver).stepClock},
	{"cancel", 4, (*Driver).stepCancel},
	{"push", 5, (*Driver).stepPush},
	{"resubmit", 5, (*Driver).stepResubmit},
	{"close", 3, (*Driver).stepClose},
	{"manual merge", 3, (*Driver).stepManualMerge},
	{"target push", 4, (*Driver).stepTargetPush},
	{"restart", 4, (*Driver).stepRestart},
	{"queue state", 3, (*Driver).stepQueueState},
	{"mode", 2, (*Driver).stepMode},
	{"merge fault", 3, (*Driver).stepMergeFault},
	{"head CI", 3, (*Driver).stepHeadCI},
	{"targets", 2, (*Driver).stepTargets},
}

// step runs one random event.
func (d *Driver) step(i int) {
	total := 0
	for _, k := range stepKinds {
		total += k.weight
	}
	for range 20 {
		x := d.rng.IntN(total)
		for _, k := range stepKinds {
			if x < k.weight {
				if k.run(d) {
					return
				}
				break
			}
			x -= k.weight
		}
	}
	d.stepClock()
}

// lost reports whether a webhook is lost (10%): reconciliation must heal it.
func (d *Driver) lost() bool { return d.rng.IntN(10) == 0 }

// randomPriority is "" (default), a name, or a number, urgent ~10%.
func (d *Driver) randomPriority() string {
	switch x := d.rng.IntN(20); {
	case x < 2:
		return "urgent"
	case x < 4:
		return strconv.Itoa(d.rng.IntN(queue.PriorityMax + 1))
	case x < 6:
		return []string{"high", "medium", "LOW"}[d.rng.IntN(3)]
	default:
		return ""
	}
}

func (d *Driver) submit(n int) {
	prio, noBatch := d.randomPriority(), d.rng.IntN(7) == 0
	cfg := d.world.Config()
	_, err := d.svc.Submit(d.ctx, queue.SubmitRequest{Key: queue.QueueKey{Repo: cfg.Repo, Branch: cfg.Branch},
		PRNumber: n, Priority: prio, NoBatch: noBatch, Submitter: "chaos", Source: "api"})
	d.logf("submit #%d priority %q noBatch %v", n, prio, noBatch)
	if err != nil {
		d.fail("Submit #%d: %v", n, err)
		return
	}
	d.prs[n].submitted = true
	if d.lost() {
		d.logf("  (targets of #%d not uploaded yet)", n)
		return
	}
	d.uploadTargets(n)
}

// uploadTargets uploads PR n's impacted targets for its current head.
func (d *Driver) uploadTargets(n int) {
	spec, cfg := d.prs[n].spec, d.world.Config()
	err := d.svc.SetImpactedTargets(d.ctx, queue.TargetsUpdate{Key: queue.QueueKey{Repo: cfg.Repo, Branch: cfg.Branch},
		PRNumber: n, SHA: d.world.PR(n).HeadSHA, All: spec.AllTargets, List: spec.Targets})
	if err != nil {
		d.fail("SetImpactedTargets #%d: %v", n, err)
	}
}

// targetNames is the universe of build targets PRs touch.
var targetNames = []string{"//a", "//b", "//c", "//d", "//e", "//f"}

// randomTargets draws a PR's targets: ALL ~8%, none ~4%, else one or two.
func (d *Driver) randomTargets(spec *PRSpec) {
	switch x := d.rng.IntN(100); {
	case x < 8:
		spec.AllTargets = true
	case x < 12:
		spec.Targets = []string{}
	default:
		for range 1 + d.rng.IntN(2) {
			if t := targetNames[d.rng.IntN(len(targetNames))]; !slices.Contains(spec.Targets, t) {
				spec.Targets = append(spec.Targets, t)
			}
		}
	}
}

// overlaps reports whether two PRs share a target (ALL shares all).
func overlaps(a, b PRSpec) bool {
	if a.AllTargets || b.AllTargets {
		return true
	}
	return slices.ContainsFunc(a.Targets, func(t string) bool { return slices.Contains(b.Targets, t) })
}

// stepOpen opens a PR (Bad ~15%, conflicting with earlier PRs ~10%) and submits it.
func (d *Driver) stepOpen() bool {
	spec := PRSpec{Bad: d.rng.IntN(100) < 15}
	d.randomTargets(&spec)
	if len(d.prs) > 0 && d.rng.IntN(10) == 0 {
		for range 1 + d.rng.IntN(2) {
			o := 1 + d.rng.IntN(len(d.prs))
			// Conflicting patches usually touch a common target; one time
			// in four the targets miss the conflict (impacted targets are
			// computed, and can be wrong).
			if other := d.prs[o].spec; !overlaps(spec, other) && len(other.Targets) > 0 && d.rng.IntN(4) > 0 {
				spec.Targets = append(spec.Targets, other.Targets[0])
			}
			spec.Conflicts = append(spec.Conflicts, o)
		}
	}
	n := d.world.OpenPR(spec)
	p := &drivenPR{n: n, bad: spec.Bad, spec: spec}
	d.prs[n] = p
	for _, o := range d.world.Conflicts(n) {
		p.excuse("conflicts with another PR")
		d.prs[o].excuse("conflicts with another PR")
	}
	targets := fmt.Sprint(spec.Targets)
	if spec.AllTargets {
		targets = "ALL"
	}
	d.logf("open #%d bad %v conflicts %v targets %s", n, spec.Bad, d.world.Conflicts(n), targets)
	d.submit(n)
	return true
}

// stepCI reports the CI of a random pending test run: its intrinsic result,
// or a flaky failure (10% of passes).
func (d *Driver) stepCI() bool {
	job, ok := pick(d.rng, d.world.PendingCI())
	if !ok {
		return false
	}
	pass := d.world.Intrinsic(job.SHA)
	flake := pass && d.rng.IntN(10) == 0
	if flake {
		pass = false
		d.excuse(job.Contains, "a test run containing it flaked")
	}
	lost := d.lost()
	d.logf("CI %s %s PRs %v: pass %v (flake %v, webhook lost %v)", job.Branch, shortSHA(job.SHA), job.Contains, pass, flake, lost)
	d.observeCI(job, pass)
	d.reportCI(job.SHA, pass, lost)
	return true
}

func (d *Driver) reportCI(sha string, pass, lost bool) {
	cfg := d.world.Config()
	for _, c := range d.world.ReportCI(sha, pass) {
		if lost {
			continue
		}
		if err := d.svc.OnCheck(d.ctx, cfg.Repo, c); err != nil {
			d.fail("OnCheck %s: %v", shortSHA(sha), err)
		}
	}
}

// stepClock advances the virtual clock: mostly seconds to minutes,
// sometimes past the testing timeout.
func (d *Driver) stepClock() bool {
	var by time.Duration
	switch x := d.rng.IntN(10); {
	case x < 7:
		by = time.Second + time.Duration(d.rng.Int64N(int64(3*time.Minute)))
	case x < 9:
		by = 3*time.Minute + time.Duration(d.rng.Int64N(int64(12*time.Minute)))
	default:
		by = 2 * time.Hour
		if t := d.settings.TestingTimeoutMinutes; t > 0 {
			by = time.Duration(t+1) * time.Minute
		}
	}
	d.advance(by)
	d.logf("clock +%s", by)
	return true
}

// stepCancel cancels a random active entry.
func (d *Driver) stepCancel() bool {
	e, ok := pick(d.rng, d.active())
	if !ok {
		return false
	}
	d.prs[e.PRNumber].excuse("cancelled")
	d.prs[e.PRNumber].mergedActive = false // a cancel may overtake a merge the queue has not heard of
	d.logf("cancel #%d (%s)", e.PRNumber, e.State)
	cfg := d.world.Config()
	if _, err := d.svc.Cancel(d.ctx, queue.QueueKey{Repo: cfg.Repo, Branch: cfg.Branch}, e.PRNumber, queue.ReasonUserRequested, "cancelled by the chaos driver"); err != nil {
		d.fail("Cancel #%d: %v", e.PRNumber, err)
	}
	return true
}

// prEvent tells the Service about PR n's new facts, unless the webhook is
// lost; it reports whether it was delivered.
func (d *Driver) prEvent(n int) bool {
	if d.lost() {
		d.logf("  (webhook for #%d lost)", n)
		return false
	}
	d.tell(n)
	return true
}

// tell delivers PR n's webhook.
func (d *Driver) tell(n int) {
	if err := d.svc.OnPullRequest(d.ctx, d.world.Config().Repo, d.world.PR(n)); err != nil {
		d.fail("OnPullRequest #%d: %v", n, err)
	}
}

// stepPush pushes to a random open PR.
func (d *Driver) stepPush() bool {
	n, ok := pick(d.rng, d.openPRs(nil))
	if !ok {
		return false
	}
	d.prs[n].excuse("pushed")
	sha := d.world.PushPR(n)
	d.logf("push #%d → %s", n, shortSHA(sha))
	d.prEvent(n)
	return true
}

// stepResubmit submits a random open PR again (another priority; a PR that
// left the queue re-enters it).
func (d *Driver) stepResubmit() bool {
	n, ok := pick(d.rng, d.openPRs(func(p *drivenPR) bool { return p.submitted }))
	if !ok {
		return false
	}
	d.submit(n)
	return true
}

// stepClose closes a random open PR.
func (d *Driver) stepClose() bool {
	n, ok := pick(d.rng, d.openPRs(nil))
	if !ok {
		return false
	}
	d.prs[n].excuse("closed")
	d.world.ClosePR(n)
	d.logf("close #%d", n)
	d.prEvent(n)
	return true
}
