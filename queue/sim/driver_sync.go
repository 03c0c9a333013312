package sim

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mergequeue/mq/queue"
)

// sync runs the Service's Sync, again while it asks to be looked at no
// later than now, records the entry events it produced, and checks them
// against the queue state (SPEC §4): no admission unless the queue admits,
// no run started while paused or switching modes, no merge while paused.
func (d *Driver) sync() {
	before := d.queue()
	if before == nil {
		return
	}
	for range 20 {
		wake, err := d.svc.Sync(d.ctx, d.q.ID)
		if err != nil {
			d.fail("Sync failed: %v", err)
			break
		}
		if wake.IsZero() || wake.After(d.now) {
			break
		}
	}
	evs := d.recordEvents()
	d.observeEvents(evs)
	after := d.queue()
	if after == nil {
		return
	}
	frozen := func(q *queue.Queue) bool { return q.State == queue.QueuePaused || q.State == queue.QueueSwitchingModes }
	for _, ev := range evs {
		switch {
		case ev.Reason == queue.ReasonAdmitted && !before.Admits() && !after.Admits():
			d.fail("#%d was admitted while the queue was %s", ev.PRNumber, after.State)
		case ev.To == queue.StateTesting && frozen(before) && frozen(after):
			d.fail("#%d started testing while the queue was %s", ev.PRNumber, after.State)
		case ev.Reason == queue.ReasonMergedByQueue && before.State == queue.QueuePaused && after.State == queue.QueuePaused:
			d.fail("#%d was merged while the queue was paused", ev.PRNumber)
		}
	}
}

// queue reads the queue.
func (d *Driver) queue() *queue.Queue {
	q, err := d.store.GetQueueByID(d.ctx, d.q.ID)
	if err != nil {
		d.fail("failed to read the queue: %v", err)
		return nil
	}
	return q
}

// recordEvents appends the Service's new entry events to the log and
// returns them.
func (d *Driver) recordEvents() []queue.Event {
	evs, err := d.store.ListEvents(d.ctx, d.q.ID, d.lastEventAt)
	if err != nil {
		d.fail("failed to list events: %v", err)
		return nil
	}
	shown := 0
	var fresh []queue.Event
	for _, ev := range evs {
		if ev.ID <= d.lastEvent {
			continue
		}
		fresh = append(fresh, ev)
		d.lastEvent, d.lastEventAt = ev.ID, ev.At
		if shown++; shown > maxEventsPerSync {
			continue
		}
		from := string(ev.From)
		if from == "" {
			from = "·"
		}
		d.log = append(d.log, fmt.Sprintf("      #%d %s → %s (%s) %s", ev.PRNumber, from, ev.To, ev.Reason, ev.Detail))
	}
	if shown > maxEventsPerSync {
		d.log = append(d.log, fmt.Sprintf("      … and %d more events", shown-maxEventsPerSync))
	}
	return fresh
}

// maxEventsPerSync bounds the events one Sync adds to the log (a livelock
// makes thousands).
const maxEventsPerSync = 40

// advance moves the virtual clock, excusing the PRs of test runs the queue
// times out meanwhile.
func (d *Driver) advance(by time.Duration) {
	next := d.now.Add(by)
	if limit := d.settings.TestingTimeout(); limit > 0 {
		for _, job := range d.world.PendingCI() {
			if !next.Before(job.PublishedAt.Add(limit)) {
				d.excuse(job.Contains, "its test run timed out")
			}
		}
	}
	d.now = next
}

func (d *Driver) excuse(prs []int, why string) {
	for _, n := range prs {
		if p := d.prs[n]; p != nil {
			p.excuse(why)
		}
	}
}

// active returns the queue's active entries, in store order.
func (d *Driver) active() []*queue.Entry {
	es, err := d.store.ListActiveEntries(d.ctx, d.q.ID)
	if err != nil {
		d.fail("failed to list active entries: %v", err)
	}
	return es
}

// entry returns PR n's entry, nil if it was never submitted.
func (d *Driver) entry(n int) *queue.Entry {
	e, err := d.store.GetEntry(d.ctx, d.q.ID, n)
	if errors.Is(err, queue.ErrNotFound) {
		return nil
	}
	if err != nil {
		d.fail("failed to read the entry of #%d: %v", n, err)
		return nil
	}
	return e
}

// openPRs returns the numbers of the PRs the driver opened that are open
// on GitHub, ascending.
func (d *Driver) openPRs(keep func(*drivenPR) bool) []int {
	var out []int
	for n, p := range d.prs {
		if d.world.PR(n).Open && (keep == nil || keep(p)) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
