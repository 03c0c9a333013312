package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/mergequeue/mq/queue"
)

// submitRequest: repo, targetBranch, pr.number, priority? and noBatch?.
type submitRequest struct {
	prRequest
	Priority priorityField `json:"priority"`
	NoBatch  bool          `json:"noBatch"`
}

// submitPullRequest (POST /v1/submitPullRequest) puts a PR into a queue, or
// updates the priority and noBatch of its active entry: 200 {}; 404 if the
// queue or the PR is unknown; 400 for an invalid priority.
func (a *API) submitPullRequest(w http.ResponseWriter, r *http.Request) error {
	var req submitRequest
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
	_, err = a.svc.Submit(r.Context(), queue.SubmitRequest{
		Key:      key,
		PRNumber: n,
		Priority: req.Priority.Value,
		NoBatch:  req.NoBatch,
		Source:   "api",
	})
	if err != nil {
		return prError(err, key, n, "submit")
	}
	return writeEmpty(w)
}

// cancelPullRequest (POST /v1/cancelPullRequest) cancels a PR's active entry
// with reason user_requested: 200 {}; 404 if the queue is unknown or the PR
// is not active in it.
func (a *API) cancelPullRequest(w http.ResponseWriter, r *http.Request) error {
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
	detail := "cancelled through the REST API"
	if tok := tokenFrom(r.Context()); tok != nil {
		detail = fmt.Sprintf("cancelled through the REST API (token %q)", tok.Name)
	}
	if _, err := a.svc.Cancel(r.Context(), key, n, queue.ReasonUserRequested, detail); err != nil {
		return prError(err, key, n, "cancel")
	}
	return writeEmpty(w)
}

// prError translates the domain errors of a PR operation into responses
// naming the queue and PR; other errors are wrapped for the log (500).
func prError(err error, key queue.QueueKey, n int, op string) error {
	switch {
	case errors.Is(err, queue.ErrPRNotFound):
		return notFoundf("pull request #%d not found in %s", n, key.Repo.FullName())
	case errors.Is(err, queue.ErrNotActive):
		return notFoundf("pull request #%d is not active in the queue for branch %q", n, key.Branch)
	case errors.Is(err, queue.ErrNotFound):
		return queueNotFound(key)
	}
	var ie *queue.InputError
	if errors.As(err, &ie) {
		return ie
	}
	return fmt.Errorf("failed to %s pull request #%d in %s: %w", op, n, key, err)
}
