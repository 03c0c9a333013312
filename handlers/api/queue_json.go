package api

import (
	"encoding/json"

	"github.com/mergequeue/mq/queue"
)

// queueJSON is a queue as the API shows it: seed §2.3 without
// enqueuedPullRequests, plus the SPEC §7 settings and the fields newer
// clients of the hosted API require (testBranchConstructionMode,
// allowedBotSubmitters, batchingRules). Every field is always present;
// enums are lower case; lists are never null except requiredStatuses,
// which keeps null (use branch protection) apart from [] (explicitly
// none). getQueue adds the entries; updateQueue answers this alone.
type queueJSON struct {
	State                       string   `json:"state"`
	Branch                      string   `json:"branch"`
	Concurrency                 int      `json:"concurrency"`
	TestingTimeoutMinutes       int      `json:"testingTimeoutMinutes"`
	Mode                        string   `json:"mode"`
	CanOptimisticallyMerge      bool     `json:"canOptimisticallyMerge"`
	PendingFailureDepth         int      `json:"pendingFailureDepth"`
	Batch                       bool     `json:"batch"`
	BatchingMaxWaitTimeMinutes  int      `json:"batchingMaxWaitTimeMinutes"`
	BatchingMinSize             int      `json:"batchingMinSize"`
	CreatePrsForTestingBranches bool     `json:"createPrsForTestingBranches"`
	CommentsEnabled             bool     `json:"commentsEnabled"`
	CommandsEnabled             bool     `json:"commandsEnabled"`
	StatusCheckEnabled          bool     `json:"statusCheckEnabled"`
	BisectionConcurrency        int      `json:"bisectionConcurrency"`
	RequiredStatuses            []string `json:"requiredStatuses"`
	// AllowedBotSubmitters is [] when none; BatchingRules is always []:
	// the queue has no batching rules (updateQueue refuses any).
	AllowedBotSubmitters       []string          `json:"allowedBotSubmitters"`
	BatchingRules              []json.RawMessage `json:"batchingRules"`
	DirectMergeMode            string            `json:"directMergeMode"`
	OptimizationMode           string            `json:"optimizationMode"`
	MergeMethod                string            `json:"mergeMethod"`
	TestBranchConstructionMode string            `json:"testBranchConstructionMode"`

	EnqueueingLabel      string `json:"enqueueingLabel"`
	LabelCommandsEnabled bool   `json:"labelCommandsEnabled"`
	StateLabelsEnabled   bool   `json:"stateLabelsEnabled"`
	ExtensionEnabled     bool   `json:"extensionEnabled"`
	BatchingMaxSize      int    `json:"batchingMaxSize"`
	NotReadyTimeoutHours int    `json:"notReadyTimeoutHours"`
	BisectionParts       int    `json:"bisectionParts"`
	// TestBranchPrefix (our extension) starts the queue's test branch
	// names: <prefix>pr-<N>/<testRunId>.
	TestBranchPrefix string `json:"testBranchPrefix"`
	// IsolationRuns (our extension, default false) also tests each
	// admitted PR alone on the target head (docs/decisions.md).
	IsolationRuns bool `json:"isolationRuns"`
}

// newQueueJSON renders q. mode is the effective mode (the pending one while
// the queue switches modes, so a client reads back what it set);
// bisectionConcurrency, batchingMaxSize, testBranchConstructionMode and
// testBranchPrefix are the effective values (following concurrency and
// batchingMinSize, or the defaults, while unset).
func newQueueJSON(q *queue.Queue) queueJSON {
	s := q.Settings
	return queueJSON{
		State:                       string(q.State),
		Branch:                      q.Key.Branch,
		Concurrency:                 s.Concurrency,
		TestingTimeoutMinutes:       s.TestingTimeoutMinutes,
		Mode:                        string(q.EffectiveMode()),
		CanOptimisticallyMerge:      s.CanOptimisticallyMerge,
		PendingFailureDepth:         s.PendingFailureDepth,
		Batch:                       s.Batch,
		BatchingMaxWaitTimeMinutes:  s.BatchingMaxWaitTimeMinutes,
		BatchingMinSize:             s.BatchingMinSize,
		CreatePrsForTestingBranches: s.CreatePrsForTestingBranches,
		CommentsEnabled:             s.CommentsEnabled,
		CommandsEnabled:             s.CommandsEnabled,
		StatusCheckEnabled:          s.StatusCheckEnabled,
		BisectionConcurrency:        s.EffectiveBisectionConcurrency(),
		RequiredStatuses:            s.RequiredStatuses,
		AllowedBotSubmitters:        append([]string{}, s.AllowedBotSubmitters...),
		BatchingRules:               []json.RawMessage{},
		TestBranchConstructionMode:  string(s.EffectiveTestBranchConstructionMode()),
		DirectMergeMode:             string(s.DirectMergeMode),
		OptimizationMode:            string(s.OptimizationMode),
		MergeMethod:                 string(s.MergeMethod),
		EnqueueingLabel:             s.EnqueueingLabel,
		LabelCommandsEnabled:        s.LabelCommandsEnabled,
		StateLabelsEnabled:          s.StateLabelsEnabled,
		ExtensionEnabled:            s.ExtensionEnabled,
		BatchingMaxSize:             s.EffectiveBatchingMaxSize(),
		NotReadyTimeoutHours:        s.NotReadyTimeoutHours,
		BisectionParts:              s.EffectiveBisectionParts(),
		TestBranchPrefix:            s.EffectiveTestBranchPrefix(),
		IsolationRuns:               s.IsolationRuns,
	}
}
