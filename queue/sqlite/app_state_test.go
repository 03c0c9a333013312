package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

func TestAppStateSurvivesReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mq.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.AppState(ctx, "app_slug"); err != nil || ok {
		t.Fatalf("AppState before any set = %v, %v", ok, err)
	}
	for _, v := range []string{"first", "merge-queue"} {
		if err := s.SetAppState(ctx, "app_slug", v); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openAt(t, path)
	if v, ok, err := s.AppState(ctx, "app_slug"); err != nil || !ok || v != "merge-queue" {
		t.Fatalf("AppState after reopen = %q, %v, %v", v, ok, err)
	}
}
