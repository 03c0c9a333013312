package queue

import "strings"

// QueueUpdate is a partial change to a queue (updateQueue): a nil field is
// left as it is. A value equal to the current one is not a change. Enum
// fields hold canonical (lower-case) values; callers parse client input
// with ParseEnum first.
type QueueUpdate struct {
	// State is running, paused or draining; switching_modes is accepted
	// only when it is the current state (a client echoing what it read).
	State *QueueState
	// Mode changes at once when no run is testing, else the queue enters
	// switching_modes until the runs in progress are done.
	Mode *Mode

	Concurrency                 *int
	TestingTimeoutMinutes       *int
	CanOptimisticallyMerge      *bool
	PendingFailureDepth         *int
	Batch                       *bool
	BatchingMaxWaitTimeMinutes  *int
	BatchingMinSize             *int
	BatchingMaxSize             *int
	CreatePrsForTestingBranches *bool
	CommentsEnabled             *bool
	CommandsEnabled             *bool
	StatusCheckEnabled          *bool
	BisectionConcurrency        *int
	// RequiredStatuses, when non-nil, replaces the override (an empty
	// slice means "explicitly none").
	RequiredStatuses *[]string
	// DeleteRequiredStatuses resets the override to nil (branch
	// protection); it wins over RequiredStatuses.
	DeleteRequiredStatuses bool
	DirectMergeMode        *DirectMergeMode
	OptimizationMode       *OptimizationMode
	MergeMethod            *MergeMethod
	EnqueueingLabel        *string
	LabelCommandsEnabled   *bool
	StateLabelsEnabled     *bool
	ExtensionEnabled       *bool
	NotReadyTimeoutHours   *int
	BisectionParts         *int
	// TestBranchConstructionMode, AllowedBotSubmitters (replaced whole; an
	// empty slice clears it) and TestBranchPrefix: see Settings.
	TestBranchConstructionMode *TestBranchConstructionMode
	AllowedBotSubmitters       *[]string
	TestBranchPrefix           *string
	IsolationRuns              *bool
}

// ApplySettings returns s changed by every settings field of u (Mode
// included, applied directly) and validated; the error is an *InputError
// naming the field. Writing bisectionConcurrency or batchingMaxSize stores
// the value explicitly: from then on it no longer follows concurrency or
// batchingMinSize.
func (u QueueUpdate) ApplySettings(s Settings) (Settings, error) {
	set := func(dst *int, src *int) {
		if src != nil {
			*dst = *src
		}
	}
	setBool := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	if u.Mode != nil {
		s.Mode = *u.Mode
	}
	set(&s.Concurrency, u.Concurrency)
	set(&s.TestingTimeoutMinutes, u.TestingTimeoutMinutes)
	setBool(&s.CanOptimisticallyMerge, u.CanOptimisticallyMerge)
	set(&s.PendingFailureDepth, u.PendingFailureDepth)
	setBool(&s.Batch, u.Batch)
	set(&s.BatchingMaxWaitTimeMinutes, u.BatchingMaxWaitTimeMinutes)
	set(&s.BatchingMinSize, u.BatchingMinSize)
	set(&s.BatchingMaxSize, u.BatchingMaxSize)
	setBool(&s.CreatePrsForTestingBranches, u.CreatePrsForTestingBranches)
	setBool(&s.CommentsEnabled, u.CommentsEnabled)
	setBool(&s.CommandsEnabled, u.CommandsEnabled)
	setBool(&s.StatusCheckEnabled, u.StatusCheckEnabled)
	set(&s.BisectionConcurrency, u.BisectionConcurrency)
	set(&s.BisectionParts, u.BisectionParts)
	switch {
	case u.DeleteRequiredStatuses:
		s.RequiredStatuses = nil
	case u.RequiredStatuses != nil:
		s.RequiredStatuses = append([]string{}, (*u.RequiredStatuses)...)
	}
	if u.DirectMergeMode != nil {
		s.DirectMergeMode = *u.DirectMergeMode
	}
	if u.OptimizationMode != nil {
		s.OptimizationMode = *u.OptimizationMode
	}
	if u.MergeMethod != nil {
		s.MergeMethod = *u.MergeMethod
	}
	if u.EnqueueingLabel != nil {
		s.EnqueueingLabel = *u.EnqueueingLabel
	}
	setBool(&s.LabelCommandsEnabled, u.LabelCommandsEnabled)
	setBool(&s.StateLabelsEnabled, u.StateLabelsEnabled)
	setBool(&s.ExtensionEnabled, u.ExtensionEnabled)
	set(&s.NotReadyTimeoutHours, u.NotReadyTimeoutHours)
	if u.TestBranchConstructionMode != nil {
		s.TestBranchConstructionMode = *u.TestBranchConstructionMode
	}
	if u.AllowedBotSubmitters != nil {
		s.AllowedBotSubmitters = append([]string{}, (*u.AllowedBotSubmitters)...)
	}
	if u.TestBranchPrefix != nil {
		s.TestBranchPrefix = *u.TestBranchPrefix
	}
	setBool(&s.IsolationRuns, u.IsolationRuns)
	if err := s.Validate(); err != nil {
		return s, err
	}
	if err := validateExtra(s, u); err != nil {
		return s, err
	}
	return s, nil
}

// validateExtra checks what Settings.Validate leaves open but a client
// must not set: names that GitHub cannot hold.
func validateExtra(s Settings, u QueueUpdate) error {
	for i, name := range s.RequiredStatuses {
		if strings.TrimSpace(name) == "" {
			return Inputf("requiredStatuses[%d] must be a non-empty status or check name", i)
		}
	}
	if u.EnqueueingLabel != nil {
		l := s.EnqueueingLabel
		if strings.TrimSpace(l) == "" || len([]rune(l)) > 50 || strings.ContainsFunc(l, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return Inputf("enqueueingLabel must be a GitHub label name of 1 to 50 printable characters, got %q", l)
		}
	}
	return nil
}

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
