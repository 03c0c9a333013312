package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// createQueueRequest: repo, targetBranch, and optionally any settable queue
// field (the same as updateQueue); the rest starts from
// queue.DefaultSettings.
type createQueueRequest struct {
	queueRequest
	queueFields
}

// createQueue (POST /v1/createQueue) creates the queue of a branch: 200 {},
// 409 if it exists, 400 for an invalid field.
func (a *API) createQueue(w http.ResponseWriter, r *http.Request) error {
	var req createQueueRequest
	if err := readJSON(w, r, &req); err != nil {
		return err
	}
	key, err := a.queueKey(r.Context(), req.queueRequest)
	if err != nil {
		return err
	}
	u, err := req.update()
	if err != nil {
		return err
	}
	// Validate before the service so that no invalid request reaches it.
	if _, err := u.ApplySettings(queue.DefaultSettings()); err != nil {
		return err
	}
	if u.State != nil && *u.State == queue.QueueSwitchingModes {
		return badRequestf("invalid field state: a new queue starts running, paused or draining")
	}
	if _, err := a.svc.CreateQueueFrom(r.Context(), key, u); err != nil {
		if errors.Is(err, queue.ErrExists) {
			return &apiError{Status: http.StatusConflict, Msg: fmt.Sprintf("queue for branch %q of %s already exists", key.Branch, key.Repo.FullName())}
		}
		var ie *queue.InputError
		if errors.As(err, &ie) {
			return ie
		}
		return fmt.Errorf("failed to create queue %s: %w", key, err)
	}
	return writeEmpty(w)
}

// getQueueResponse is seed §2.3: the queue and its enqueued pull requests
// (active admitted entries in queue order; never null).
type getQueueResponse struct {
	queueJSON
	EnqueuedPullRequests []pullRequestJSON `json:"enqueuedPullRequests"`
	AutoTuning           autoTuningJSON    `json:"autoTuning"`
}

// getQueue (POST /v1/getQueue) returns a queue's state, settings and
// enqueued pull requests; 404 if the queue is unknown. A read side that
// hands out snapshots (QueueSnapshots) has each snapshot's answer encoded
// once.
func (a *API) getQueue(w http.ResponseWriter, r *http.Request) error {
	var req queueRequest
	if err := readJSON(w, r, &req); err != nil {
		return err
	}
	key, err := a.queueKey(r.Context(), req)
	if err != nil {
		return err
	}
	if qs, ok := a.reads.(QueueSnapshots); ok {
		snap, err := qs.QueueSnapshot(r.Context(), key)
		if err != nil {
			return getQueueError(key, err)
		}
		body, err := snap.Encoded(func(s *readside.QueueSnapshot) ([]byte, error) {
			return encodeJSON(newGetQueueResponse(s.Queue, s.Entries, s.Tuning))
		})
		if err != nil {
			return err
		}
		writeBody(w, body)
		return nil
	}
	q, entries, err := a.reads.GetQueue(r.Context(), key)
	if err != nil {
		return getQueueError(key, err)
	}
	var tuning *queue.QueueTuning
	if qt, ok := a.reads.(QueueTunings); ok {
		if tuning, err = qt.QueueTuning(r.Context(), q); err != nil {
			return err
		}
	}
	return writeJSON(w, newGetQueueResponse(q, entries, tuning))
}

// newGetQueueResponse renders a queue and its active entries in queue
// order, with autoTune's effective values and last change (tuning).
func newGetQueueResponse(q *queue.Queue, entries []*queue.Entry, tuning *queue.QueueTuning) getQueueResponse {
	resp := getQueueResponse{
		queueJSON:            newQueueJSON(q),
		EnqueuedPullRequests: make([]pullRequestJSON, 0, len(entries)),
		AutoTuning:           newAutoTuningJSON(q, tuning),
	}
	for _, e := range entries {
		if !e.Admitted() { // the contract, enforced: never not_ready or ended
			continue
		}
		resp.EnqueuedPullRequests = append(resp.EnqueuedPullRequests, newPullRequestJSON(e))
	}
	return resp
}

// getQueueError maps the read side's failure to read a queue.
func getQueueError(key queue.QueueKey, err error) error {
	if errors.Is(err, queue.ErrNotFound) {
		return queueNotFound(key)
	}
	return fmt.Errorf("failed to get queue %s: %w", key, err)
}

// queueNotFound is the 404 for an unknown queue.
func queueNotFound(key queue.QueueKey) error {
	return notFoundf("no queue for branch %q of %s", key.Branch, key.Repo.FullName())
}
