package sqlite

import (
	"context"
	"testing"
	"time"
)

func TestSaveEntryRejectsOutOfRangeTime(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	e := pendingEntry("e", q.ID, 1)
	e.SubmittedAt = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := s.SaveEntry(context.Background(), e); err == nil {
		t.Error("SaveEntry with a year-3000 time succeeded, want error")
	}
}
