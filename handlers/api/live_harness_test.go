package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/handlers/api/apitoken/apitokentest"
	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/readside"
	"github.com/mergequeue/mq/queue/service"
)

// liveHarness is the API over the real queue service and read side and an
// in-memory store, for what the queue itself decides (defaults, stored
// values, switching modes). createQueue, getQueue and updateQueue make no
// GitHub call, so the service has no GitHub port.
type liveHarness struct {
	*harness
	store *memstore.Store
}

func newLiveHarness(t *testing.T) *liveHarness {
	t.Helper()
	store := memstore.New()
	svc := service.NewService(store, nil, service.Options{Now: func() time.Time { return testNow }})
	reads := readside.New(store, readside.Options{Now: func() time.Time { return testNow }})
	h := &harness{t: t, tokens: apitokentest.NewStore(), logs: &syncBuffer{}}
	h.tokens.Add(secretAll, apitoken.Token{Name: "all"})
	handler := New(svc, reads, h.tokens, Options{Now: h.nowFunc(), Logger: zerolog.New(h.logs)})
	mux := http.NewServeMux()
	mux.Handle("/v1/", handler)
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return &liveHarness{harness: h, store: store}
}

// startRun records a test run in progress on the queue of branch, as the
// engine does when it starts testing.
func (h *liveHarness) startRun(branch string) {
	h.t.Helper()
	ctx := context.Background()
	q, err := h.store.GetQueue(ctx, queue.QueueKey{Repo: testKey.Repo, Branch: branch})
	if err != nil {
		h.t.Fatal(err)
	}
	run := &queue.TestRun{ID: "run-1", QueueID: q.ID, Status: queue.RunInProgress, CreatedAt: testNow}
	if err := h.store.SaveRun(ctx, run); err != nil {
		h.t.Fatal(err)
	}
}
