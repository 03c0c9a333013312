//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// How the crash tests drive the queue: PRs opened on the fake, submitted by
// REST, by a `/mq merge` comment or by the enqueue label, with held CI
// released at random moments.

// submitMethod is how a PR is submitted.
type submitMethod int

const (
	byREST submitMethod = iota
	byComment
	byLabel
)

func (m submitMethod) String() string {
	return [...]string{"REST", "comment", "label"}[m]
}

// repoJSON is the repository in REST bodies.
func repoJSON() map[string]any {
	return map[string]any{"host": "github.com", "owner": crashRepoOwner, "name": crashRepoName}
}

// call posts one REST operation; err is a transport error (the bot may be
// down), a status is returned as is.
func (h *crashHarness) call(op string, body any) (int, []byte, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return 0, nil, fmt.Errorf("failed to encode %s: %w", op, err)
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+h.addr+"/v1/"+op, bytes.NewReader(data))
	if err != nil {
		return 0, nil, fmt.Errorf("failed to build %s: %w", op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-token", h.token)
	resp, err := h.client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: failed to read the answer: %w", op, err)
	}
	return resp.StatusCode, out, nil
}

// createQueue creates the queue of main with fields (retrying while the
// bot restarts; a queue that exists already counts).
func (h *crashHarness) createQueue(fields map[string]any) {
	h.t.Helper()
	body := map[string]any{"repo": repoJSON(), "targetBranch": crashBranch}
	for k, v := range fields {
		body[k] = v
	}
	var last string
	h.waitFor("createQueue to succeed", crashWait, func() bool {
		status, out, err := h.call("createQueue", body)
		last = fmt.Sprintf("%d %s %v", status, out, err)
		return status == http.StatusOK || status == http.StatusConflict
	}, func() string { return "last answer: " + last })
}

// setQueueState pauses or resumes the queue of main (retrying while the
// bot restarts).
func (h *crashHarness) setQueueState(state string) {
	h.t.Helper()
	body := map[string]any{"repo": repoJSON(), "targetBranch": crashBranch, "state": state}
	var last string
	h.waitFor("updateQueue to set state "+state, crashWait, func() bool {
		status, out, err := h.call("updateQueue", body)
		last = fmt.Sprintf("%d %s %v", status, out, err)
		return status == http.StatusOK
	}, func() string { return "last answer: " + last })
}

// entryView is what getSubmittedPullRequest says about a PR.
type entryView struct {
	State             string `json:"state"`
	StateReason       string `json:"stateReason"`
	StateReasonDetail string `json:"stateReasonDetail"`
	PRSHA             string `json:"prSha"`
}

// terminal reports whether the entry ended.
func (e entryView) terminal() bool {
	return e.State == "merged" || e.State == "failed" || e.State == "cancelled"
}

// entry reads a PR's entry; ok is false when it was never submitted.
func (h *crashHarness) entry(pr int) (e entryView, ok bool, err error) {
	status, out, err := h.call("getSubmittedPullRequest", map[string]any{"repo": repoJSON(), "targetBranch": crashBranch,
		"pr": map[string]any{"number": pr}})
	switch {
	case err != nil:
		return e, false, err
	case status == http.StatusNotFound:
		return e, false, nil
	case status != http.StatusOK:
		return e, false, fmt.Errorf("getSubmittedPullRequest #%d: %d %s", pr, status, out)
	}
	if err := json.Unmarshal(out, &e); err != nil {
		return e, false, fmt.Errorf("getSubmittedPullRequest #%d: %w", pr, err)
	}
	return e, true, nil
}

// openPR commits files on a new branch and opens a PR from it as dev.
func (h *crashHarness) openPR(branch string, files map[string]string) int {
	h.t.Helper()
	if _, err := h.fake.Commit(crashRepoOwner, crashRepoName, branch, files, "change "+branch); err != nil {
		h.t.Fatalf("failed to commit on %s: %v", branch, err)
	}
	n, err := h.fake.OpenPR(crashRepoOwner, crashRepoName, fakegithub.PROptions{Head: branch, Base: crashBranch,
		Title: "Change " + branch, Author: crashAuthor})
	if err != nil {
		h.t.Fatalf("failed to open a PR from %s: %v", branch, err)
	}
	return n
}

// submit submits pr by how and returns once the bot acknowledged it: a 200
// from the REST API, or a 2xx to the webhook of the comment or label. An
// attempt the bot did not acknowledge (it was down or died) is repeated
// once it is up again, as a user would; an acknowledged one never is, so
// a webhook acknowledged and then lost shows in the invariants. Safe to
// call from any goroutine: failures are returned, not fatal.
func (h *crashHarness) submit(pr int, how submitMethod) error {
	return h.submitUntil(pr, how, crashWait)
}

// submitUntil is submit with its own bound.
func (h *crashHarness) submitUntil(pr int, how submitMethod, bound time.Duration) error {
	deadline := time.Now().Add(bound)
	var first, last error
	for attempt := 1; time.Now().Before(deadline); attempt++ {
		if attempt > 1 {
			time.Sleep(500 * time.Millisecond) // a user's pause before trying again
		}
		if err := pollUntil(time.Until(deadline), h.ready); err != nil {
			break
		}
		var acked bool
		switch how {
		case byREST:
			acked, last = h.submitREST(pr)
		case byComment:
			acked, last = h.submitComment(pr)
		case byLabel:
			acked, last = h.submitLabel(pr)
		}
		if acked {
			if attempt > 1 {
				h.t.Logf("#%d submitted by %s at attempt %d (the first: %s)", pr, how, attempt, oneLine(first))
			}
			return nil
		}
		if first == nil {
			first = last
		}
	}
	return fmt.Errorf("failed to submit #%d by %s within %v: %s", pr, how, bound, oneLine(last))
}

func (h *crashHarness) submitREST(pr int) (bool, error) {
	status, out, err := h.call("submitPullRequest", map[string]any{"repo": repoJSON(), "targetBranch": crashBranch,
		"pr": map[string]any{"number": pr}})
	if err != nil {
		return false, err
	}
	if status != http.StatusOK {
		return false, fmt.Errorf("submitPullRequest #%d: %d %s", pr, status, out)
	}
	return true, nil
}

// submitComment posts `/mq merge` as alice and waits for its delivery.
func (h *crashHarness) submitComment(pr int) (bool, error) {
	from := len(h.fake.Deliveries())
	id, err := h.fake.Comment(crashRepoOwner, crashRepoName, pr, crashCommenter, "Ship it.\n/mq merge")
	if err != nil {
		return false, fmt.Errorf("failed to comment on #%d: %w", pr, err)
	}
	return h.deliveryAcked(from, fmt.Sprintf("issue_comment for comment %d", id), func(d fakegithub.DeliveryRecord) bool {
		var p struct {
			Comment struct {
				ID int64 `json:"id"`
			} `json:"comment"`
		}
		return d.Event == "issue_comment" && json.Unmarshal(d.Payload, &p) == nil && p.Comment.ID == id
	})
}

// submitLabel adds the enqueue label as alice (removing it first when an
// earlier, unacknowledged attempt left it) and waits for the delivery.
func (h *crashHarness) submitLabel(pr int) (bool, error) {
	if got, err := h.fake.PR(crashRepoOwner, crashRepoName, pr); err == nil {
		for _, l := range got.Labels {
			if l.GetName() == crashEnqueueTag {
				if err := h.fake.RemoveLabel(crashRepoOwner, crashRepoName, pr, crashCommenter, crashEnqueueTag); err != nil {
					return false, fmt.Errorf("failed to remove the label from #%d: %w", pr, err)
				}
			}
		}
	}
	from := len(h.fake.Deliveries())
	if err := h.fake.AddLabel(crashRepoOwner, crashRepoName, pr, crashCommenter, crashEnqueueTag); err != nil {
		return false, fmt.Errorf("failed to label #%d: %w", pr, err)
	}
	return h.deliveryAcked(from, fmt.Sprintf("pull_request labeled for #%d", pr), func(d fakegithub.DeliveryRecord) bool {
		var p struct {
			Number int `json:"number"`
			Label  struct {
				Name string `json:"name"`
			} `json:"label"`
		}
		return d.Event == "pull_request" && d.Action == "labeled" && json.Unmarshal(d.Payload, &p) == nil &&
			p.Number == pr && p.Label.Name == crashEnqueueTag
	})
}

// deliveryAcked waits until the fake attempted the delivery matching match
// (among those after index from) and reports whether it got a 2xx.
func (h *crashHarness) deliveryAcked(from int, what string, match func(fakegithub.DeliveryRecord) bool) (bool, error) {
	var rec *fakegithub.DeliveryRecord
	err := pollUntil(crashWait, func() bool {
		ds := h.fake.Deliveries()
		for i := from; i < len(ds); i++ {
			if match(ds[i]) {
				rec = &ds[i]
				return true
			}
		}
		return false
	})
	if err != nil {
		return false, fmt.Errorf("the fake never attempted the %s delivery", what)
	}
	if rec.StatusCode < 200 || rec.StatusCode > 299 {
		return false, fmt.Errorf("%s delivery %s: %d %s", what, rec.ID, rec.StatusCode, rec.Err)
	}
	return true, nil
}

// paceCI holds the simulated CI and completes every pending run at random
// moments (every lo to hi), so that results arrive throughout, until the
// returned stop is called; stop lets every later run complete on its own.
func (h *crashHarness) paceCI(rng *rand.Rand, lo, hi time.Duration) (stop func()) {
	h.fake.SetCIHold(true)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(lo + time.Duration(rng.Int64N(int64(hi-lo)+1))):
			}
			h.fake.ReleaseCI()
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			wg.Wait()
			h.fake.SetCIHold(false)
			h.fake.ReleaseCI()
		})
	}
}

// waitEnded waits until every PR in prs has an ended entry (merged,
// failed or cancelled), the simulated CI has nothing pending and the fake
// has delivered every webhook, and returns the entries. It gives up, with
// an error saying what it saw, when the queue went quiet short of that
// (every existing entry ended, nothing pending, no change for crashQuiet:
// a PR that never got an entry will not get one), or after bound. The invariants then tell what is wrong.
func (h *crashHarness) waitEnded(prs []int, bound time.Duration) (map[int]entryView, error) {
	deadline := time.Now().Add(bound)
	var quietSince time.Time
	var quietView, last string
	for {
		got := map[int]entryView{}
		var missing, active []string
		readable := true
		for _, pr := range prs {
			e, ok, err := h.entry(pr)
			switch {
			case err != nil:
				readable, last = false, err.Error()
			case !ok:
				missing = append(missing, fmt.Sprintf("#%d", pr))
			case !e.terminal():
				active = append(active, fmt.Sprintf("#%d %s (%s)", pr, e.State, e.StateReason))
			default:
				got[pr] = e
			}
			if !readable {
				break
			}
		}
		pending := len(h.fake.PendingCI())
		ctx, cancel := context.WithTimeout(context.Background(), crashPoll)
		hooksIdle := h.fake.WaitWebhooksIdle(ctx) == nil
		cancel()
		if readable {
			last = fmt.Sprintf("no entry: %v; active: %v; %d CI runs pending; webhooks idle %v", missing, active, pending, hooksIdle)
		}
		quiet := readable && len(active) == 0 && pending == 0 && hooksIdle
		switch {
		case quiet && len(missing) == 0:
			return got, nil
		case !quiet || last != quietView:
			quietSince, quietView = time.Time{}, ""
			if quiet {
				quietSince, quietView = time.Now(), last
			}
		case time.Since(quietSince) > crashQuiet:
			return got, fmt.Errorf("the queue went quiet for %v short of ending every entry: %s", crashQuiet, last)
		}
		if time.Now().After(deadline) {
			return got, fmt.Errorf("not every entry ended within %v: %s; exits: %v", bound, last, h.exitsSoFar())
		}
		time.Sleep(crashPoll) // polling interval, not a wait for an outcome
	}
}

// oneLine renders err on one line (GitHub's and the bot's messages may
// span several).
func oneLine(err error) string {
	if err == nil {
		return "<nil>"
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}
