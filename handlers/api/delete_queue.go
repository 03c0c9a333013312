package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/mergequeue/mq/queue"
)

// deleteQueue (POST /v1/deleteQueue) deletes a queue that has no active
// pull requests: 200 {} (also when the queue does not exist); 400 while
// active entries remain, naming them.
func (a *API) deleteQueue(w http.ResponseWriter, r *http.Request) error {
	var req queueRequest
	if err := readJSON(w, r, &req); err != nil {
		return err
	}
	key, err := a.queueKey(r.Context(), req)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteQueue(r.Context(), key); err != nil {
		var ie *queue.InputError
		if errors.As(err, &ie) {
			return ie
		}
		return fmt.Errorf("failed to delete queue %s: %w", key, err)
	}
	return writeEmpty(w)
}
