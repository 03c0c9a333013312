package bodydeadline

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestDeadlineMax(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		policy Policy
		n      int64
		want   time.Duration
	}{
		{"below Max", Policy{Grace: time.Second, MinRate: 1000, Max: 5 * time.Second}, 1000, 2 * time.Second},
		{"capped at Max", Policy{Grace: time.Second, MinRate: 1000, Max: 5 * time.Second}, 100000, 5 * time.Second},
		{"25 MiB at the defaults, 30 s in all", Policy{Max: 30 * time.Second}, 25 << 20, 30 * time.Second},
		{"Max below Grace", Policy{Grace: time.Second, Max: 100 * time.Millisecond}, 0, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.policy.Deadline(start, tt.n).Sub(start); got != tt.want {
				t.Errorf("Deadline(start, %d) = start+%s, want start+%s", tt.n, got, tt.want)
			}
		})
	}
}

// A body that keeps well above the outer policy's MinRate is cut by the
// Max of a policy nested inside it (the webhook route's), with an error
// naming that policy; without the nested policy the same body is read
// whole.
func TestNestedMaxCutsASteadyBody(t *testing.T) {
	t.Parallel()
	outer := Policy{Grace: 300 * time.Millisecond, MinRate: 1 << 10}
	inner := Policy{Grace: 300 * time.Millisecond, MinRate: 1 << 10, Max: 400 * time.Millisecond}
	read := make(chan error, 1)
	srv := httptest.NewServer(outer.Handler(inner.Handler(readingHandler(read))))
	defer srv.Close()
	// 12 KiB at about 8 KiB/s: 1.5 s, eight times the rate both allow.
	got := send(t, srv.Listener.Addr().String(), "/", nil, 12<<10, 512, 62*time.Millisecond, 10*time.Second)
	if !got.closed && got.status != http.StatusRequestTimeout {
		t.Fatalf("got %d %q, want 408 or a closed connection", got.status, got.body)
	}
	if bound := inner.Max + cutBound; got.elapsed > bound {
		t.Errorf("cut after %s, want within %s", got.elapsed, bound)
	}
	var tooSlow *TooSlowError
	if err := <-read; !errors.As(err, &tooSlow) || tooSlow.Policy.Max != inner.Max {
		t.Fatalf("handler read error %v, want a *TooSlowError of the nested policy", err)
	}

	plain := httptest.NewServer(outer.Handler(readingHandler(nil)))
	defer plain.Close()
	if got := send(t, plain.Listener.Addr().String(), "/", nil, 12<<10, 512, 62*time.Millisecond, 10*time.Second); got.status != http.StatusOK {
		t.Fatalf("without the nested policy: got %+v, want 200", got)
	}
}

// A nested policy never loosens the outer one: a trickle is cut at the
// outer Grace even inside a policy that would allow it far longer.
func TestNestedPolicyCannotLoosen(t *testing.T) {
	t.Parallel()
	loose := Policy{Grace: time.Minute, MinRate: 1}
	srv := httptest.NewServer(testPolicy.Handler(loose.Handler(readingHandler(nil))))
	defer srv.Close()
	got := send(t, srv.Listener.Addr().String(), "/", nil, 1000, 1, 20*time.Millisecond, 5*time.Second)
	if !got.closed && got.status != http.StatusRequestTimeout {
		t.Fatalf("got %d %q, want 408 or a closed connection", got.status, got.body)
	}
	if bound := testPolicy.Grace + cutBound; got.elapsed > bound {
		t.Errorf("cut after %s, want within %s", got.elapsed, bound)
	}
}
