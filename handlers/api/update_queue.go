package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/mergequeue/mq/queue"
)

// updateQueueRequest: repo, targetBranch and any settable queue field;
// absent (or null) fields keep their value.
type updateQueueRequest struct {
	queueRequest
	queueFields
}

// updateQueue (POST /v1/updateQueue) changes some of a queue's settings
// and answers 200 with the full queue as getQueue shows it, without
// enqueuedPullRequests. A value equal to the current one is not a change.
// Changing mode while tests run puts the queue in switching_modes; the
// answer shows the new mode and, as state, the state the queue returns to
// (queue.Queue.SettledState, SPEC §7), so a client reads back what it
// asked for. 404 if the queue is unknown; 400 for an invalid field, in
// which case nothing changes.
func (a *API) updateQueue(w http.ResponseWriter, r *http.Request) error {
	var req updateQueueRequest
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
	q, err := a.svc.UpdateQueue(r.Context(), key, u)
	if err != nil {
		var ie *queue.InputError
		switch {
		case errors.As(err, &ie):
			return ie
		case errors.Is(err, queue.ErrNotFound):
			return queueNotFound(key)
		}
		return fmt.Errorf("failed to update queue %s: %w", key, err)
	}
	resp := newQueueJSON(q)
	resp.State = string(q.SettledState())
	return writeJSON(w, resp)
}
