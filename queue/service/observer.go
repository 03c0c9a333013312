package service

import (
	"errors"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Results of a reconciliation pass, as reported to a ReconcileObserver.
const (
	PassOK        = "ok"        // every due write was made
	PassTransient = "transient" // cut short by GitHub failing as a whole
	PassError     = "error"     // cut short by another failure
)

// ReconcileObserver is told how the reconciler fares: each pass and each
// failed write. It runs on the reconciler's goroutine: it must be quick and
// safe for concurrent use.
type ReconcileObserver interface {
	// ReconcilePass reports a pass: its result and how long it took.
	ReconcilePass(result string, took time.Duration)
	// ReconcileWriteFailed reports a refused write of a surface or notice
	// (not a GitHub-wide failure, which ends the pass); gaveUp is true
	// when it will not be tried again.
	ReconcileWriteFailed(gaveUp bool)
}

// SetObserver makes the reconciler report to o. Call it before Run.
func (r *Reconciler) SetObserver(o ReconcileObserver) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.obs = o
}

func (r *Reconciler) observer() ReconcileObserver {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.obs
}

// observePass reports a pass that started at start and ended with err.
func (r *Reconciler) observePass(start time.Time, err error) {
	o := r.observer()
	if o == nil {
		return
	}
	result := PassOK
	switch {
	case errors.Is(err, queue.ErrTransient):
		result = PassTransient
	case err != nil:
		result = PassError
	}
	o.ReconcilePass(result, max(r.now().Sub(start), 0))
}

// observeWriteFailed reports a refused write.
func (r *Reconciler) observeWriteFailed(gaveUp bool) {
	if o := r.observer(); o != nil {
		o.ReconcileWriteFailed(gaveUp)
	}
}
