package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/mergequeue/mq/handlers/inbox"
)

// figure is one line of the report measured by load: a request sent by
// clients keep-alive clients back to back.
type figure struct {
	Key     string // for --only
	Name    string // as printed
	Clients int
	req     request
	// after runs once the figure is measured, before the next one starts
	// (waiting for the work the figure left behind).
	after func(ctx context.Context) error
}

// figureKeys lists every figure's key, in the order of the report
// (ownServiceFigures last).
var figureKeys = []string{"empty", "getSubmittedPullRequest", "getSubmittedPullRequest-1", "getQueue", "healthz", "webhooks", "writes", "ci-to-merge", "idle"}

// ownServiceFigures are the figures measured on services of their own
// (not on the one the load figures share); idle is measured only for
// the counts of -idle-queues.
var ownServiceFigures = []string{"writes", "ci-to-merge", "idle"}

// emptyFigure is the reference: `{}` from an empty handler.
func emptyFigure(e *emptyServer, clients int) figure {
	return figure{Key: "empty", Name: fmt.Sprintf("empty Go handler `{}`, %d client%s", clients, plural(clients)), Clients: clients,
		req: func(ctx context.Context, c *http.Client, _, _ int) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL+"/", bytes.NewReader([]byte(`{}`))) //nolint:gosec // G704: the load command's own empty server on loopback
			if err != nil {
				return err
			}
			return roundTrip(c, req, http.StatusOK)
		}}
}

// apiFigure posts REST operation op with the bodies given, in turn, each
// client starting at its own.
func (s *service) apiFigure(key, name, op string, clients int, bodies [][]byte) figure {
	url := s.env.URL + "/v1/" + op
	return figure{Key: key, Name: name, Clients: clients,
		req: func(ctx context.Context, c *http.Client, worker, seq int) error {
			body := bodies[(worker*7+seq)%len(bodies)]
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
			if err != nil {
				return err
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("x-api-token", s.token)
			return roundTrip(c, req, http.StatusOK)
		}}
}

// pointReadFigure reads the submitted PRs with getSubmittedPullRequest, a
// different one each time.
func (s *service) pointReadFigure(key string, clients int) figure {
	var bodies [][]byte
	for _, pr := range s.prs {
		b, _ := json.Marshal(map[string]any{"repo": repoJSON(), "targetBranch": loadBranch, "pr": map[string]any{"number": pr}})
		bodies = append(bodies, b)
	}
	return s.apiFigure(key, fmt.Sprintf("getSubmittedPullRequest, %d client%s", clients, plural(clients)), "getSubmittedPullRequest", clients, bodies)
}

// getQueueFigure reads the whole queue with getQueue.
func (s *service) getQueueFigure(clients int) figure {
	b, _ := json.Marshal(map[string]any{"repo": repoJSON(), "targetBranch": loadBranch})
	return s.apiFigure("getQueue", fmt.Sprintf("getQueue of %d entries, %d clients", len(s.prs), clients), "getQueue", clients, [][]byte{b})
}

// healthzFigure asks GET /healthz.
func (s *service) healthzFigure(clients int) figure {
	url := s.env.URL + "/healthz"
	return figure{Key: "healthz", Name: fmt.Sprintf("/healthz, %d clients", clients), Clients: clients,
		req: func(ctx context.Context, c *http.Client, _, _ int) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return err
			}
			return roundTrip(c, req, http.StatusOK)
		}}
}

// statusPayloads has the fake GitHub post a status (ci/lint, success) on
// every queued PR's head and keeps the payloads of the status webhooks it
// sent: real deliveries' bodies, to be sent again under new delivery IDs.
func (s *service) statusPayloads(ctx context.Context) ([][]byte, error) {
	f := s.env.Fake
	before := len(f.Deliveries())
	for _, pr := range s.prs {
		if err := f.SetStatus(loadOwner, loadRepo, s.heads[pr], "ci/lint", "success"); err != nil {
			return nil, fmt.Errorf("failed to post a status: %w", err)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := f.WaitWebhooksIdle(wctx); err != nil {
		return nil, err
	}
	var out [][]byte
	for _, d := range f.Deliveries()[before:] {
		if d.Event == "status" {
			out = append(out, d.Payload)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the fake GitHub sent no status webhook")
	}
	return out, nil
}

// webhookFigure sends signed status deliveries, each under a delivery ID
// of its own, from senders senders; a delivery counts when it is
// acknowledged (200: stored). After it, the figure waits until the
// service has processed every delivery it stored, so that the next figure
// is not measured beside that work.
func (s *service) webhookFigure(payloads [][]byte, senders int, round int) figure {
	url := s.env.URL + "/api/github/hook"
	secret := []byte(s.env.WebhookSecret())
	sigs := make([]string, len(payloads))
	for i, p := range payloads {
		mac := hmac.New(sha256.New, secret)
		mac.Write(p)
		sigs[i] = "sha256=" + hex.EncodeToString(mac.Sum(nil))
	}
	prefix := "mqload-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + strconv.Itoa(round) + "-"
	return figure{Key: "webhooks", Name: fmt.Sprintf("signed webhook deliveries (status), %d senders", senders), Clients: senders,
		req: func(ctx context.Context, c *http.Client, worker, seq int) error {
			i := (worker*7 + seq) % len(payloads)
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payloads[i]))
			if err != nil {
				return err
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(inbox.HeaderEvent, "status")
			req.Header.Set(inbox.HeaderDelivery, prefix+strconv.Itoa(worker)+"-"+strconv.Itoa(seq))
			req.Header.Set(inbox.HeaderSignature, sigs[i])
			req.Header.Set("User-Agent", "GitHub-Hookshot/mqload")
			return roundTrip(c, req, http.StatusOK)
		},
		after: s.waitInboxDrained,
	}
}

// waitInboxDrained waits until no stored delivery is left to process.
func (s *service) waitInboxDrained(ctx context.Context) error {
	store := s.env.App().Store()
	return waitFor(ctx, 5*time.Minute, "the webhook inbox to drain", func() (bool, error) {
		pending, err := store.PendingDeliveries(ctx, 1)
		return len(pending) == 0, err
	})
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
