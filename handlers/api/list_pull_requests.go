package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// defaultTake is the page size of listPullRequests when take is absent.
const defaultTake = 50

// stateFilter is listPullRequests' state: one entry state or a list of
// them, any case; null or [] means every state.
type stateFilter []queue.EntryState

// UnmarshalJSON accepts "merged", ["TESTING", "pending"] and null.
func (f *stateFilter) UnmarshalJSON(b []byte) error {
	raw := strings.TrimSpace(string(b))
	var names []string
	switch {
	case raw == "null":
		*f = nil
		return nil
	case strings.HasPrefix(raw, `"`):
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return badRequestf("invalid field state: %v", err)
		}
		names = []string{s}
	case strings.HasPrefix(raw, "["):
		if err := json.Unmarshal(b, &names); err != nil {
			return badRequestf("invalid field state: must be a state or an array of states")
		}
	default:
		return badRequestf("invalid field state: must be a state or an array of states, got %s", truncate(raw))
	}
	out := stateFilter{}
	for _, n := range names {
		st, err := parseEnum("state", n, queue.AllEntryStates...)
		if err != nil {
			return err
		}
		out = append(out, st)
	}
	*f = out
	return nil
}

type listPullRequestsRequest struct {
	queueRequest
	State  stateFilter `json:"state"`
	Since  *string     `json:"since"`
	Until  *string     `json:"until"`
	Cursor *string     `json:"cursor"`
	Take   *int        `json:"take"`
}

type listPullRequestsResponse struct {
	PullRequests []submittedPullRequestJSON `json:"pullRequests"`
	NextCursor   *string                    `json:"nextCursor,omitempty"`
}

// query validates the filters and builds the store query, asking one entry
// more than the page to learn whether another page follows.
func (req *listPullRequestsRequest) query() (queue.EntryQuery, int, error) {
	take := defaultTake
	if req.Take != nil {
		take = *req.Take
		if take < 1 || take > readside.MaxListTake {
			return queue.EntryQuery{}, 0, badRequestf("invalid field take: must be between 1 and %d, got %d", readside.MaxListTake, take)
		}
	}
	q := queue.EntryQuery{States: req.State, Limit: take + 1}
	var err error
	if req.Since != nil {
		if q.Since, err = parseInstant("since", *req.Since); err != nil {
			return q, 0, err
		}
	}
	if req.Until != nil {
		if q.Until, err = parseInstant("until", *req.Until); err != nil {
			return q, 0, err
		}
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && q.Since.After(q.Until) {
		return q, 0, badRequestf("since (%s) is after until (%s)", timestamp(q.Since), timestamp(q.Until))
	}
	if req.Cursor != nil && *req.Cursor != "" {
		if q.AfterAt, q.AfterID, err = decodeCursor(*req.Cursor); err != nil {
			return q, 0, err
		}
	}
	return q, take, nil
}

// listPullRequests (POST /v1/listPullRequests) lists a queue's pull
// requests, active or ended, newest first (by concluded time for ended
// entries, submission time otherwise), filtered by state and time range,
// take (1–100, default 50) per page; nextCursor is present when another
// page may follow. 404 if the queue is unknown.
func (a *API) listPullRequests(w http.ResponseWriter, r *http.Request) error {
	var req listPullRequestsRequest
	if err := readJSON(w, r, &req); err != nil {
		return err
	}
	key, err := a.queueKey(r.Context(), req.queueRequest)
	if err != nil {
		return err
	}
	query, take, err := req.query()
	if err != nil {
		return err
	}
	subs, err := a.reads.ListPullRequests(r.Context(), key, query)
	if err != nil {
		var ie *queue.InputError
		switch {
		case errors.As(err, &ie):
			return ie
		case errors.Is(err, queue.ErrNotFound):
			return queueNotFound(key)
		}
		return fmt.Errorf("failed to list pull requests of %s: %w", key, err)
	}
	resp := listPullRequestsResponse{PullRequests: make([]submittedPullRequestJSON, 0, min(len(subs), take))}
	for i, s := range subs {
		if i == take {
			last := subs[take-1].Entry
			c := encodeCursor(last.ActivityAt(), last.ID)
			resp.NextCursor = &c
			break
		}
		resp.PullRequests = append(resp.PullRequests, newSubmittedPullRequestJSON(s))
	}
	return writeJSON(w, resp)
}

// Instants the store can hold; filters outside are clamped to them.
var (
	earliestInstant = time.Unix(0, 0).UTC()
	latestInstant   = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)
)

// instantLayouts are the ISO-8601 forms accepted for since and until; a
// time without a zone is UTC. Fractions of a second are accepted by each.
var instantLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"}

// parseInstant reads an ISO-8601 timestamp (400 if it is not one).
func parseInstant(field, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range instantLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			if t.Before(earliestInstant) {
				t = earliestInstant
			}
			if t.After(latestInstant) {
				t = latestInstant
			}
			return t, nil
		}
	}
	return time.Time{}, badRequestf("invalid field %s: %q is not an ISO-8601 timestamp such as 2026-07-23T01:32:50.000Z", field, truncate(s))
}
