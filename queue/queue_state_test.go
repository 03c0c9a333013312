package queue

import "testing"

// SettledState is what updateQueue answers: the state a queue switching
// modes returns to, else its state.
func TestSettledState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		state, resume, want QueueState
	}{
		{QueueRunning, "", QueueRunning},
		{QueuePaused, "", QueuePaused},
		{QueueDraining, "", QueueDraining},
		{QueueSwitchingModes, "", QueueRunning},
		{QueueSwitchingModes, QueueRunning, QueueRunning},
		{QueueSwitchingModes, QueuePaused, QueuePaused},
		{QueueSwitchingModes, QueueDraining, QueueDraining},
		{QueueSwitchingModes, QueueSwitchingModes, QueueRunning},
	}
	for _, tt := range tests {
		q := &Queue{State: tt.state, ResumeState: tt.resume}
		if got := q.SettledState(); got != tt.want {
			t.Errorf("state %q resuming %q: SettledState = %q, want %q", tt.state, tt.resume, got, tt.want)
		}
	}
}
