package queue

// QueueUpdate and its ApplySettings are generated from the declaration of
// the settings (queue/settingdecl) into settings_gen.go.

// CheckStateWrite validates a state write against the queue's current state.
func CheckStateWrite(cur QueueState, want QueueState) error {
	switch want {
	case QueueRunning, QueuePaused, QueueDraining:
		return nil
	case QueueSwitchingModes:
		if cur == QueueSwitchingModes {
			return nil // echoed back unchanged
		}
		return Inputf("state switching_modes cannot be set: it is entered by changing mode while tests run")
	}
	return Inputf("state: %q is not one of running, paused, draining", want)
}
