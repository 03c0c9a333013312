package fakegithub

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
)

// hookTimeout is how long a delivery may take (GitHub gives 10 s).
const hookTimeout = 10 * time.Second

// idleTracker counts outstanding background work (queued webhooks and CI
// jobs) and wakes waiters when it drops to zero.
type idleTracker struct {
	mu      sync.Mutex
	n       int
	waiters []chan struct{}
}

func newIdleTracker() *idleTracker { return &idleTracker{} }

func (t *idleTracker) add() {
	t.mu.Lock()
	t.n++
	t.mu.Unlock()
}

func (t *idleTracker) done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n--
	if t.n == 0 {
		for _, w := range t.waiters {
			close(w)
		}
		t.waiters = nil
	}
}

// wait blocks until the count is zero, ctx ends or closed is closed.
func (t *idleTracker) wait(ctx context.Context, closed <-chan struct{}) error {
	t.mu.Lock()
	if t.n == 0 {
		t.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	t.waiters = append(t.waiters, ch)
	t.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-closed:
		return fmt.Errorf("failed to wait for webhooks: server closed")
	case <-ctx.Done():
		return fmt.Errorf("failed to wait for webhooks: %w", ctx.Err())
	}
}

// webhookQueue delivers events one at a time, in the order they were
// queued, from a single goroutine. Failed deliveries are recorded, never
// retried.
type webhookQueue struct {
	s      *Server
	client *http.Client
	wake   chan struct{}

	mu         sync.Mutex
	url        string
	secret     string
	queue      []*delivery
	deliveries []DeliveryRecord
}

type delivery struct {
	event   string
	action  string
	payload []byte
}

func newWebhookQueue(s *Server, url, secret string) *webhookQueue {
	return &webhookQueue{
		s:      s,
		client: &http.Client{Timeout: hookTimeout},
		wake:   make(chan struct{}, 1),
		url:    url,
		secret: secret,
	}
}

// SetWebhookURL sets (or changes) where webhooks are sent; deliveries
// dequeued while it is "" are recorded as failed.
func (s *Server) SetWebhookURL(url string) {
	s.hooks.mu.Lock()
	s.hooks.url = url
	s.hooks.mu.Unlock()
}

// Deliveries returns every attempted delivery, oldest first.
func (s *Server) Deliveries() []DeliveryRecord {
	s.hooks.mu.Lock()
	defer s.hooks.mu.Unlock()
	return append([]DeliveryRecord(nil), s.hooks.deliveries...)
}

// WaitWebhooksIdle blocks until every queued webhook has been attempted and
// the simulated CI has no job in progress (CI jobs queue webhooks). It
// fails if ctx ends or the server is closed first.
func (s *Server) WaitWebhooksIdle(ctx context.Context) error {
	return s.idle.wait(ctx, s.closed)
}

// emit queues an event; payload is marshalled now so later state changes
// do not leak into it.
func (s *Server) emit(event, action string, payload any) {
	body, err := json.Marshal(payload)
	if err != nil {
		body = []byte(fmt.Sprintf(`{"error":%q}`, err.Error()))
	}
	q := s.hooks
	s.idle.add()
	q.mu.Lock()
	q.queue = append(q.queue, &delivery{event: event, action: action, payload: body})
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// run is the sender loop.
func (q *webhookQueue) run(ctx context.Context) {
	for {
		q.mu.Lock()
		var d *delivery
		if len(q.queue) > 0 {
			d = q.queue[0]
			q.queue = q.queue[1:]
		}
		url, secret := q.url, q.secret
		q.mu.Unlock()
		if d == nil {
			select {
			case <-q.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		rec := q.send(ctx, url, secret, d)
		q.mu.Lock()
		q.deliveries = append(q.deliveries, rec)
		q.mu.Unlock()
		q.s.idle.done()
	}
}

// send performs one delivery.
func (q *webhookQueue) send(ctx context.Context, url, secret string, d *delivery) DeliveryRecord {
	rec := DeliveryRecord{Event: d.event, Action: d.action, ID: uuid.NewString(), Payload: d.payload}
	if url == "" {
		rec.Err = "no webhook URL configured"
		return rec
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(d.payload))
	if err != nil {
		rec.Err = fmt.Sprintf("failed to build request: %v", err)
		return rec
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(d.payload)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/fake")
	req.Header.Set("X-GitHub-Event", d.event)
	req.Header.Set("X-GitHub-Delivery", rec.ID)
	req.Header.Set("X-GitHub-Hook-ID", "1")
	req.Header.Set("X-GitHub-Hook-Installation-Target-Type", "integration")
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := q.client.Do(req)
	if err != nil {
		rec.Err = fmt.Sprintf("failed to deliver: %v", err)
		return rec
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	rec.StatusCode = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		rec.Err = fmt.Sprintf("HTTP %d", resp.StatusCode)
	}
	return rec
}
