package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// QueueBootstrap is a queue created at start-up when it does not exist yet.
// Empty fields take queue.DefaultSettings.
type QueueBootstrap struct {
	Repo        string `yaml:"repo"` // "owner/name"
	Branch      string `yaml:"branch"`
	Mode        string `yaml:"mode"`
	Concurrency int    `yaml:"concurrency"`
	// RequiredStatuses: absent = branch protection decides; [] = none.
	RequiredStatuses []string `yaml:"required_statuses"`
	MergeMethod      string   `yaml:"merge_method"`
	// AutoTune and its bounds (autoTune, autoTuneMaxRuns,
	// autoTuneMaxRunsPerHundredMerges): 0 leaves a bound unset.
	AutoTune                        bool `yaml:"auto_tune"`
	AutoTuneMaxRuns                 int  `yaml:"auto_tune_max_runs"`
	AutoTuneMaxRunsPerHundredMerges int  `yaml:"auto_tune_max_runs_per_hundred_merges"`
}

// Key returns the queue this entry bootstraps on host. Call after Validate.
func (b QueueBootstrap) Key(host string) queue.QueueKey {
	owner, name, _ := strings.Cut(b.Repo, "/")
	return queue.QueueKey{Repo: queue.Repo{Host: host, Owner: owner, Name: name}, Branch: b.Branch}
}

// Update is the entry's settings as the partial update a new queue's
// settings take (as createQueue's are): an absent key, and a concurrency
// that is not positive, leave the default. Its values are parsed and
// checked by the queue's rules for its settings (queue/settingdecl),
// never here: enums in any case, ranges, names.
func (b QueueBootstrap) Update() queue.QueueUpdate {
	var u queue.QueueUpdate
	if b.Mode != "" {
		m := queue.Mode(b.Mode)
		u.Mode = &m
	}
	if b.Concurrency > 0 {
		n := b.Concurrency
		u.Concurrency = &n
	}
	if b.RequiredStatuses != nil {
		l := slices.Clone(b.RequiredStatuses)
		u.RequiredStatuses = &l
	}
	if b.MergeMethod != "" {
		m := queue.MergeMethod(b.MergeMethod)
		u.MergeMethod = &m
	}
	if b.AutoTune {
		on := true
		u.AutoTune = &on
	}
	if b.AutoTuneMaxRuns != 0 {
		n := b.AutoTuneMaxRuns
		u.AutoTuneMaxRuns = &n
	}
	if b.AutoTuneMaxRunsPerHundredMerges != 0 {
		n := b.AutoTuneMaxRunsPerHundredMerges
		u.AutoTuneMaxRunsPerHundredMerges = &n
	}
	return u
}

// Settings returns queue.DefaultSettings with this entry's values applied
// (Update), enums in their canonical form. Call after Validate, which
// reports values Settings refuses.
func (b QueueBootstrap) Settings() (queue.Settings, error) {
	return b.Update().ApplySettings(queue.DefaultSettings())
}

// bootstrapKey is a key of a queues[] entry that sets a queue setting: its
// YAML name, the setting's API name (which the queue's errors use) and the
// part of an Update it writes.
type bootstrapKey struct {
	yaml, api string
	only      func(queue.QueueUpdate) queue.QueueUpdate
}

// bootstrapKeys are the settings a queues[] entry sets, in the order
// Validate reports them.
var bootstrapKeys = []bootstrapKey{
	{"concurrency", "concurrency", func(u queue.QueueUpdate) queue.QueueUpdate { return queue.QueueUpdate{Concurrency: u.Concurrency} }},
	{"mode", "mode", func(u queue.QueueUpdate) queue.QueueUpdate { return queue.QueueUpdate{Mode: u.Mode} }},
	{"merge_method", "mergeMethod", func(u queue.QueueUpdate) queue.QueueUpdate { return queue.QueueUpdate{MergeMethod: u.MergeMethod} }},
	{"required_statuses", "requiredStatuses", func(u queue.QueueUpdate) queue.QueueUpdate {
		return queue.QueueUpdate{RequiredStatuses: u.RequiredStatuses}
	}},
	{"auto_tune", "autoTune", func(u queue.QueueUpdate) queue.QueueUpdate { return queue.QueueUpdate{AutoTune: u.AutoTune} }},
	{"auto_tune_max_runs", "autoTuneMaxRuns", func(u queue.QueueUpdate) queue.QueueUpdate {
		return queue.QueueUpdate{AutoTuneMaxRuns: u.AutoTuneMaxRuns}
	}},
	{"auto_tune_max_runs_per_hundred_merges", "autoTuneMaxRunsPerHundredMerges", func(u queue.QueueUpdate) queue.QueueUpdate {
		return queue.QueueUpdate{AutoTuneMaxRunsPerHundredMerges: u.AutoTuneMaxRunsPerHundredMerges}
	}},
}

// named makes the queue's error about this key's setting name the entry's
// key: `mergeMethod: "ff" is not one of …` becomes
// `queues[2].merge_method: "ff" is not one of …`, and "concurrency must be
// between …" becomes "queues[0]: concurrency must be between …".
func (k bootstrapKey) named(entry string, err error) error {
	rest, ok := strings.CutPrefix(err.Error(), k.api)
	if !ok {
		return fmt.Errorf("%s: %w", entry, err)
	}
	if after, ok := strings.CutPrefix(rest, ": "); ok {
		return fmt.Errorf("%s.%s: %s", entry, k.yaml, after)
	}
	return fmt.Errorf("%s: %s%s", entry, k.yaml, rest)
}

func (c *Config) validateQueues() []error {
	var errs []error
	seen := map[string]int{}
	for i, q := range c.Queues {
		key := fmt.Sprintf("queues[%d]", i)
		owner, name, ok := strings.Cut(q.Repo, "/")
		switch {
		case !ok || owner == "" || name == "" || strings.Contains(name, "/"):
			errs = append(errs, fmt.Errorf("%s.repo: %q is not owner/name", key, q.Repo))
		default:
			if err := queue.ValidateOwner(owner); err != nil {
				errs = append(errs, renameField(err, key+".repo (owner)"))
			}
			if err := queue.ValidateRepoName(name); err != nil {
				errs = append(errs, renameField(err, key+".repo (name)"))
			}
		}
		if q.Branch == "" {
			errs = append(errs, fmt.Errorf("%s.branch is required", key))
		} else if err := queue.ValidateBranch(q.Branch); err != nil {
			errs = append(errs, renameField(err, key+".branch"))
		}
		if q.Concurrency < 0 { // 0 (absent) is the default; Update leaves out the rest
			errs = append(errs, fmt.Errorf("%s.concurrency: %d must be positive", key, q.Concurrency))
		}
		u, each := q.Update(), true
		for _, k := range bootstrapKeys {
			if err := k.only(u).CheckFields(); err != nil {
				errs, each = append(errs, k.named(key, err)), false
			}
		}
		if each { // the rules across settings
			if _, err := u.ApplySettings(queue.DefaultSettings()); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", key, err))
			}
		}
		id := strings.ToLower(q.Repo) + ":" + q.Branch
		if j, dup := seen[id]; dup {
			errs = append(errs, fmt.Errorf("%s: %s branch %s is already queues[%d]", key, q.Repo, q.Branch, j))
		}
		seen[id] = i
	}
	return errs
}
