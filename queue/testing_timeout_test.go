package queue

import (
	"testing"
	"time"
)

func succeeded(d time.Duration, finished int) *TestRun {
	end := time.Date(2026, 7, 23, 12, 0, 0, 0, time.UTC).Add(time.Duration(finished) * time.Minute)
	return &TestRun{Status: RunSucceeded, StartedAt: end.Add(-d), FinishedAt: end}
}

// The testing timeout from history is the p95 of the latest successful
// runs plus half of it (at least 5 minutes), never below 10 minutes, in
// whole minutes, once 5 runs succeeded; testingTimeoutMinutes before.
func TestTestingTimeoutFor(t *testing.T) {
	t.Parallel()
	minutes := func(ms ...int) []*TestRun {
		var out []*TestRun
		for i, m := range ms {
			out = append(out, succeeded(time.Duration(m)*time.Minute, i))
		}
		return out
	}
	fixed := Settings{TestingTimeoutMinutes: 60}
	history := Settings{TestingTimeoutMinutes: 60, TestingTimeoutFromHistory: true}
	tests := []struct {
		name   string
		s      Settings
		recent []*TestRun
		want   time.Duration
		from   bool
		text   string
	}{
		{"off: the setting", fixed, minutes(10, 10, 10, 10, 10), time.Hour, false, "60 minutes"},
		{"too few runs: the setting", history, minutes(10, 10, 10, 10), time.Hour, false, "60 minutes"},
		{"p95 plus half", history, minutes(20, 20, 20, 20, 30), 45 * time.Minute, true,
			"45 minutes (the p95 of the queue's recent successful runs, 30 minutes, plus a margin)"},
		{"the margin is at least 5 minutes", history, minutes(6, 6, 6, 6, 8), 13 * time.Minute, true,
			"13 minutes (the p95 of the queue's recent successful runs, 8 minutes, plus a margin)"},
		{"never below the floor", history, minutes(1, 1, 1, 1, 1), 10 * time.Minute, true,
			"10 minutes (the p95 of the queue's recent successful runs, 1 minute, plus a margin)"},
		{"only the latest 20 count", history, func() []*TestRun {
			out := minutes(100, 100, 100, 100, 100) // finished first
			for i := 0; i < 20; i++ {
				out = append(out, succeeded(20*time.Minute, 10+i))
			}
			return out
		}(), 30 * time.Minute, true, "30 minutes (the p95 of the queue's recent successful runs, 20 minutes, plus a margin)"},
		{"failed and unstarted runs do not count", history, append(minutes(20, 20, 20, 20),
			&TestRun{Status: RunFailed, StartedAt: time.Unix(0, 0), FinishedAt: time.Unix(9000, 0)},
			&TestRun{Status: RunSucceeded, FinishedAt: time.Unix(9000, 0)}), time.Hour, false, "60 minutes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := TestingTimeoutFor(tc.s, tc.recent)
			if got.Limit != tc.want || got.FromHistory != tc.from || got.Describe() != tc.text {
				t.Errorf("TestingTimeoutFor() = %+v (%q), want %v from history %v (%q)", got, got.Describe(), tc.want, tc.from, tc.text)
			}
		})
	}
}
