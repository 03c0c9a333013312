package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/mergequeue/mq/queue"
)

// restartTestsOnPullRequest (POST /v1/restartTestsOnPullRequest) tests an
// active, admitted PR again on the same predicted base, keeping its place:
// 200 {}; 400 if the PR is not active in the queue or not admitted yet;
// 404 if the queue is unknown.
func (a *API) restartTestsOnPullRequest(w http.ResponseWriter, r *http.Request) error {
	var req prRequest
	if err := readJSON(w, r, &req); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	key, err := a.queueKey(r.Context(), req.queueRequest)
	if err != nil {
		return err
	}
	n := int(req.PR.Number)
	if _, err := a.svc.Restart(r.Context(), key, n); err != nil {
		var ie *queue.InputError
		switch {
		case errors.Is(err, queue.ErrNotActive):
			return badRequestf("pull request #%d is not active in the queue for branch %q: nothing to restart", n, key.Branch)
		case errors.As(err, &ie):
			return ie
		case errors.Is(err, queue.ErrNotFound):
			return queueNotFound(key)
		}
		return fmt.Errorf("failed to restart pull request #%d in %s: %w", n, key, err)
	}
	return writeEmpty(w)
}
