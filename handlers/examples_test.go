package handlers

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/inbox"
)

// TestEveryExampleIsHandled runs every example payload through the full set
// of handlers via the processor: none may fail, with or without an
// installation in the payload.
func TestEveryExampleIsHandled(t *testing.T) {
	t.Parallel()
	dirs, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	store := newFakeInbox()
	n := 0
	for _, dir := range dirs {
		if !dir.IsDir() {
			continue
		}
		files, err := filepath.Glob(filepath.Join(examplesDir, dir.Name(), "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			payload, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.PutDelivery(context.Background(), inbox.Delivery{ID: f, Event: dir.Name(), Payload: payload}); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	svc, gh := newFakeService(), newFakeGitHub()
	p := inbox.NewProcessor(store, New(testConfig(), svc, svc, gh), zerolog.Nop())
	got, err := p.ProcessPending(context.Background())
	if err != nil || got != n || n < 90 {
		t.Fatalf("ProcessPending = %d, %v; want %d (>= 90)", got, err, n)
	}
	for _, id := range store.order {
		if d, _ := store.get(id); !d.Done || d.Error != "" {
			t.Errorf("%s: done=%v error=%q", id, d.Done, d.Error)
		}
	}
	if len(svc.prs) == 0 || len(svc.checks) == 0 || len(svc.pushes) == 0 {
		t.Fatalf("facts %d, checks %d, pushes %d; want some of each", len(svc.prs), len(svc.checks), len(svc.pushes))
	}
}

func TestIgnoredEvents(t *testing.T) {
	t.Parallel()
	h := NewIgnoredHandler()
	for _, f := range []string{"ping/payload.json", "installation/created.payload.json",
		"installation_repositories/added.payload.json", "check_suite/completed.payload.json"} {
		if err := h.Handle(context.Background(), filepath.Dir(f), "d", loadExample(t, f)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
}
