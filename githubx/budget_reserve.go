package githubx

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/mergequeue/mq/queue"
)

// budgetLocked is installation id's budget, made on first use; c.mu is
// held. It outlives the installation's client (dropped after a 401), so a
// new token never resets the windows or a pause.
func (c *Client) budgetLocked(id int64) *scheduler {
	b, ok := c.budgets[id]
	if !ok {
		obs, _ := c.opts.observer.(BudgetObserver)
		b = newScheduler(c.opts.budget, c.opts.clock, obs)
		c.budgets[id] = b
	}
	return b
}

// reservation is budget for one write, granted before the write was
// composed; the first write sent with a context carrying it uses it.
type reservation struct {
	budget *scheduler
	use    *use
	taken  atomic.Bool // used by a write, or given back
}

type reservationKey struct{}

// takeReservation returns the reservation ctx carries for budget, when
// the request is a write and the reservation was not used yet.
func takeReservation(ctx context.Context, budget *scheduler, c cost) *use {
	r, ok := ctx.Value(reservationKey{}).(*reservation)
	if !ok || !c.write || r.budget != budget || !r.taken.CompareAndSwap(false, true) {
		return nil
	}
	return r.use
}

// ReserveWrite waits, in class, for the budget of one write to repo's
// installation, so that a caller can wait first and compose the write
// after, from the newest state: what changed meanwhile is written once,
// the states in between skipped. The first write made with the returned
// context (through this Client, to that installation) uses the
// reservation instead of waiting again; any later one waits as usual.
// release gives the reservation back when nothing was written with it
// (after such a write it does nothing); call it in every case. A
// reservation counts in the installation's windows from its grant until
// it is used or released. An error is ctx's, or the installation could
// not be resolved; nothing is then held.
func (c *Client) ReserveWrite(ctx context.Context, repo queue.Repo, class WriteClass) (context.Context, func(), error) {
	id, _, err := c.installation(ctx, repo)
	if err != nil {
		return ctx, func() {}, fmt.Errorf("failed to reserve a write to %s: %w", repo.FullName(), err)
	}
	c.mu.Lock()
	b := c.budgetLocked(id)
	c.mu.Unlock()
	u, err := b.reserve(ctx, class)
	if err != nil {
		return ctx, func() {}, fmt.Errorf("failed to reserve a write to %s: %w", repo.FullName(), err)
	}
	r := &reservation{budget: b, use: u}
	release := func() {
		if r.taken.CompareAndSwap(false, true) {
			b.unreserve(u)
		}
	}
	return context.WithValue(ctx, reservationKey{}, r), release, nil
}

var (
	_ queue.WriteReserver = (*Client)(nil)
	_ queue.WriteHeadroom = (*Client)(nil)
)

// ReserveSurfaceWrite is ReserveWrite in ClassSurface (queue.WriteReserver).
func (c *Client) ReserveSurfaceWrite(ctx context.Context, repo queue.Repo) (context.Context, func(), error) {
	return c.ReserveWrite(ctx, repo, ClassSurface)
}

// WriteHeadroom implements queue.WriteHeadroom: the share of the write
// budget of repo's installation free now, 1 − the fuller of the minute and
// hour windows; 0 while the installation is paused or writes wait for
// budget; 1 for an installation that has sent nothing yet.
func (c *Client) WriteHeadroom(repo queue.Repo) float64 {
	c.mu.Lock()
	id, ok := c.installations[repoKey(repo)]
	b := c.budgets[id]
	c.mu.Unlock()
	if !ok || b == nil {
		return 1
	}
	return b.headroom()
}
