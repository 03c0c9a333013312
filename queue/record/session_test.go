package record

import (
	"testing"
	"time"
)

// t0 is a fixed instant with nanoseconds.
var t0 = time.Date(2026, 7, 23, 1, 32, 50, 123456789, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func TestSessionExpired(t *testing.T) {
	t.Parallel()
	d := DashboardSession{CreatedAt: t0, SeenAt: at(time.Hour), ExpiresAt: at(10 * time.Hour), Idle: 2 * time.Hour}
	for _, c := range []struct {
		now  time.Time
		idle time.Duration
		want bool
	}{
		{at(2 * time.Hour), 2 * time.Hour, false},
		{at(3*time.Hour - 1), 2 * time.Hour, false},
		{at(3 * time.Hour), 2 * time.Hour, true}, // idle
		{at(3 * time.Hour), 0, false},            // no idle limit
		{at(10*time.Hour - 1), 0, false},
		{at(10 * time.Hour), 0, true}, // absolute
	} {
		d.Idle = c.idle
		if got := d.Expired(c.now); got != c.want {
			t.Errorf("Expired(%v) with idle %s = %v, want %v", c.now.Sub(t0), c.idle, got, c.want)
		}
	}
}
