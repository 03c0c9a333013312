package service_test

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/service"
)

type reconcileLog struct {
	mu     sync.Mutex
	passes []string
	writes []bool
}

func (l *reconcileLog) ReconcilePass(result string, took time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if took < 0 {
		panic("negative pass duration")
	}
	l.passes = append(l.passes, result)
}

func (l *reconcileLog) ReconcileWriteFailed(gaveUp bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, gaveUp)
}

// The observer hears of every pass with its result, and of every refused
// write, the last one given up.
func TestReconcilerReportsPassesAndFailedWrites(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, func(s *queue.Settings) { s.StatusCheckEnabled = false })
	obs := &reconcileLog{}
	w.rec.SetObserver(obs)
	w.set(1, "head1", queue.StatePendingFailure, queue.ReasonTestsFailed)
	w.gh.fail["UpsertComment"] = []error{errBadGateway}
	if err := w.pass(); !errors.Is(err, queue.ErrTransient) {
		t.Fatalf("pass = %v, want the transient failure", err)
	}
	for range 10 {
		w.gh.fail["UpsertComment"] = append(w.gh.fail["UpsertComment"], errors.New("422 locked conversation"))
	}
	for range 10 {
		w.mustPass()
		w.now = w.now.Add(2 * time.Minute)
	}
	want := append([]string{service.PassTransient}, slices.Repeat([]string{service.PassOK}, 10)...)
	if !slices.Equal(obs.passes, want) {
		t.Errorf("passes %q, want %q", obs.passes, want)
	}
	wantWrites := append(slices.Repeat([]bool{false}, 9), true)
	if !slices.Equal(obs.writes, wantWrites) {
		t.Errorf("failed writes (gave up?) %v, want %v", obs.writes, wantWrites)
	}
}
