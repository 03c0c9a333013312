package api

import (
	"encoding/json"

	"github.com/mergequeue/mq/queue"
)

// queueFields are the settable fields of a queue, as getQueue names them,
// accepted by createQueue and updateQueue. An absent field and a null one
// are both "no change"; requiredStatuses is reset with
// deleteRequiredStatuses: true. Read-only fields a client echoes back
// (branch, enqueuedPullRequests) are ignored like any unknown field. A
// wrong JSON type is a 400 naming the field (decodeJSON).
type queueFields struct {
	State                       *string   `json:"state"`
	Mode                        *string   `json:"mode"`
	Concurrency                 *int      `json:"concurrency"`
	TestingTimeoutMinutes       *int      `json:"testingTimeoutMinutes"`
	CanOptimisticallyMerge      *bool     `json:"canOptimisticallyMerge"`
	PendingFailureDepth         *int      `json:"pendingFailureDepth"`
	Batch                       *bool     `json:"batch"`
	BatchingMaxWaitTimeMinutes  *int      `json:"batchingMaxWaitTimeMinutes"`
	BatchingMinSize             *int      `json:"batchingMinSize"`
	BatchingMaxSize             *int      `json:"batchingMaxSize"`
	CreatePrsForTestingBranches *bool     `json:"createPrsForTestingBranches"`
	CommentsEnabled             *bool     `json:"commentsEnabled"`
	CommandsEnabled             *bool     `json:"commandsEnabled"`
	StatusCheckEnabled          *bool     `json:"statusCheckEnabled"`
	BisectionConcurrency        *int      `json:"bisectionConcurrency"`
	RequiredStatuses            *[]string `json:"requiredStatuses"`
	DeleteRequiredStatuses      *bool     `json:"deleteRequiredStatuses"`
	DirectMergeMode             *string   `json:"directMergeMode"`
	OptimizationMode            *string   `json:"optimizationMode"`
	MergeMethod                 *string   `json:"mergeMethod"`
	EnqueueingLabel             *string   `json:"enqueueingLabel"`
	LabelCommandsEnabled        *bool     `json:"labelCommandsEnabled"`
	StateLabelsEnabled          *bool     `json:"stateLabelsEnabled"`
	ExtensionEnabled            *bool     `json:"extensionEnabled"`
	NotReadyTimeoutHours        *int      `json:"notReadyTimeoutHours"`
	BisectionParts              *int      `json:"bisectionParts"`
	TestBranchConstructionMode  *string   `json:"testBranchConstructionMode"`
	AllowedBotSubmitters        *[]string `json:"allowedBotSubmitters"`
	TestBranchPrefix            *string   `json:"testBranchPrefix"`
	IsolationRuns               *bool     `json:"isolationRuns"`
	// BatchingRules is accepted only as [] (what getQueue shows): the
	// queue has no batching rules, and a rule it would ignore is refused.
	BatchingRules *[]json.RawMessage `json:"batchingRules"`
}

// update turns the fields into a queue.QueueUpdate, parsing enums in any
// case (400 for an unknown value). Ranges are checked by the queue
// (queue.QueueUpdate.ApplySettings), whose *queue.InputError is a 400 too.
// bisectionConcurrency and batchingMaxSize must be at least 1 when written,
// and testBranchPrefix not empty: the API always shows their effective
// value, so 0 or "" could never be read back. batchingRules must be [].
func (f *queueFields) update() (queue.QueueUpdate, error) {
	u := queue.QueueUpdate{
		Concurrency:                 f.Concurrency,
		TestingTimeoutMinutes:       f.TestingTimeoutMinutes,
		CanOptimisticallyMerge:      f.CanOptimisticallyMerge,
		PendingFailureDepth:         f.PendingFailureDepth,
		Batch:                       f.Batch,
		BatchingMaxWaitTimeMinutes:  f.BatchingMaxWaitTimeMinutes,
		BatchingMinSize:             f.BatchingMinSize,
		BatchingMaxSize:             f.BatchingMaxSize,
		CreatePrsForTestingBranches: f.CreatePrsForTestingBranches,
		CommentsEnabled:             f.CommentsEnabled,
		CommandsEnabled:             f.CommandsEnabled,
		StatusCheckEnabled:          f.StatusCheckEnabled,
		BisectionConcurrency:        f.BisectionConcurrency,
		RequiredStatuses:            f.RequiredStatuses,
		DeleteRequiredStatuses:      f.DeleteRequiredStatuses != nil && *f.DeleteRequiredStatuses,
		EnqueueingLabel:             f.EnqueueingLabel,
		LabelCommandsEnabled:        f.LabelCommandsEnabled,
		StateLabelsEnabled:          f.StateLabelsEnabled,
		ExtensionEnabled:            f.ExtensionEnabled,
		NotReadyTimeoutHours:        f.NotReadyTimeoutHours,
		BisectionParts:              f.BisectionParts,
		AllowedBotSubmitters:        f.AllowedBotSubmitters,
		TestBranchPrefix:            f.TestBranchPrefix,
		IsolationRuns:               f.IsolationRuns,
	}
	for _, p := range []struct {
		name string
		v    *int
	}{{"bisectionConcurrency", f.BisectionConcurrency}, {"batchingMaxSize", f.BatchingMaxSize}} {
		if p.v != nil && *p.v < 1 {
			return u, badRequestf("invalid field %s: must be at least 1, got %d", p.name, *p.v)
		}
	}
	if f.TestBranchPrefix != nil && *f.TestBranchPrefix == "" {
		return u, badRequestf(`invalid field testBranchPrefix: must not be empty (the default is %q)`, queue.DefaultTestBranchPrefix)
	}
	if f.BatchingRules != nil && len(*f.BatchingRules) > 0 {
		return u, badRequestf("invalid field batchingRules: batching rules are not supported; only [] is accepted, got %d rule(s)", len(*f.BatchingRules))
	}
	var err error
	if u.State, err = optEnum("state", f.State, queue.QueueRunning, queue.QueuePaused, queue.QueueDraining, queue.QueueSwitchingModes); err != nil {
		return u, err
	}
	if u.Mode, err = optEnum("mode", f.Mode, queue.ModeSingle, queue.ModeParallel); err != nil {
		return u, err
	}
	if u.DirectMergeMode, err = optEnum("directMergeMode", f.DirectMergeMode, queue.DirectMergeOff, queue.DirectMergeAlways); err != nil {
		return u, err
	}
	if u.OptimizationMode, err = optEnum("optimizationMode", f.OptimizationMode, queue.OptimizationOff, queue.OptimizationBisectionSkipTests); err != nil {
		return u, err
	}
	if u.MergeMethod, err = optEnum("mergeMethod", f.MergeMethod, queue.MergeCommit, queue.Squash, queue.Rebase); err != nil {
		return u, err
	}
	if u.TestBranchConstructionMode, err = optEnum("testBranchConstructionMode", f.TestBranchConstructionMode, queue.RenameTempBranch); err != nil {
		return u, err
	}
	return u, nil
}

// optEnum parses an optional enum field (nil stays nil).
func optEnum[T ~string](field string, s *string, allowed ...T) (*T, error) {
	if s == nil {
		return nil, nil
	}
	v, err := parseEnum(field, *s, allowed...)
	if err != nil {
		return nil, err
	}
	return &v, nil
}
