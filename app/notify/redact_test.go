package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

func TestRedactURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ raw, want string }{
		{"https://hooks.slack.com/services/T000/B000/XXXXXXXX", "https://hooks.slack.com"},
		{"https://user:pass@hooks.example:8443/h?token=abc#frag", "https://hooks.example:8443"},
		{"http://127.0.0.1:1/hook", "http://127.0.0.1:1"},
		{"http://%zz/secret", "(unparseable URL)"},
		{"hooks.slack.com/services/T000/B000/XXXXXXXX", "(unparseable URL)"},
		{"", "(unparseable URL)"},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.raw); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}

// logBuffer is a bytes.Buffer safe for concurrent writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Targets whose URLs carry a secret fail every way a delivery can (5xx, a
// permanent 4xx, connection refused, an unparseable URL): the log lines
// and the stored retry errors name them by scheme and host only.
func TestFailingTargetsNeverLogTheirURL(t *testing.T) {
	t.Parallel()
	const secret = "T0SECRET0B0SECRET0XXXX"
	f := newFixture(t)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/refuse/") {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer failing.Close()
	targets := []Target{
		{URL: failing.URL + "/services/T0/B0/" + secret, Kind: Slack},
		{URL: failing.URL + "/refuse/" + secret, Kind: Webhook, Secret: "whsec_" + secret},
		{URL: "http://127.0.0.1:1/hook?token=" + secret, Kind: Webhook},
		{URL: "http://user:" + secret + "@127.0.0.1:1/x", Kind: Slack},
		{URL: "http://%zz/" + secret, Kind: Webhook},
	}
	var logs logBuffer
	ctx, cancel := context.WithCancel(zerolog.New(&logs).Level(zerolog.DebugLevel).WithContext(f.ctx))
	n := New(sqliteStore{f.store}, Options{Targets: targets, DetailsURL: "http://mq.example/", Poll: 5 * time.Millisecond,
		Now: func() time.Time { return f.now }})
	for _, tg := range targets { // every cursor starts before the events
		if _, err := n.Step(ctx, tg); err != nil {
			t.Fatal(err)
		}
	}
	f.event(t, 3, queue.StateTestsPassed, queue.StateMerged, queue.ReasonMergedByQueue, "single")
	n.Start(ctx)
	defer func() { cancel(); n.Wait() }()

	// Wait until every target has logged a failure.
	deadline := time.Now().Add(30 * time.Second)
	for {
		seen := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["error"] != nil {
				seen[m["kind"].(string)+" "+m["notify"].(string)] = true
			}
		}
		if len(seen) == len(targets) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d targets logged a failure:\n%s", len(seen), len(targets), logs.String())
		}
		time.Sleep(5 * time.Millisecond) // polling interval
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("a target's secret is in the log:\n%s", logs.String())
	}
	for _, tg := range targets {
		c, err := f.store.NotificationCursor(f.ctx, tg.key())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(c.LastError, secret) {
			t.Errorf("stored retry error %q holds the secret", c.LastError)
		}
	}
}
