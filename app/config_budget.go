package app

import (
	"fmt"
	"time"

	"github.com/mergequeue/mq/githubx"
)

// GitHubBudget is the `github.budget` block: how much of GitHub's
// secondary rate limits each App installation may use (githubx.Budget).
// Zero fields take GitHub's documented numbers. Writes (and reads, for
// points and concurrency) wait for the budget, granted merges first and
// PR comments, check runs and labels last; GitHub's rate-limit answers
// pause the installation whatever the budget says.
type GitHubBudget struct {
	// ConcurrentRequests bounds the requests in flight (GitHub: 100).
	ConcurrentRequests int `yaml:"concurrent_requests"`
	// PointsPerMinute bounds the points per minute: a read costs 1, a write
	// 5 (GitHub: 900).
	PointsPerMinute int `yaml:"points_per_minute"`
	// WritesPerMinute and WritesPerHour bound the content-generating
	// requests (POST, PATCH, PUT, DELETE) (GitHub: 80 and 500).
	WritesPerMinute int `yaml:"writes_per_minute"`
	WritesPerHour   int `yaml:"writes_per_hour"`
	// Minute and Hour are the lengths of the windows the counts apply to
	// (1m and 1h); Minute is also the pause after a secondary limit that
	// names no wait.
	Minute time.Duration `yaml:"minute"`
	Hour   time.Duration `yaml:"hour"`
	// MaxPause caps the doubling of the pause after repeated secondary
	// limits (15m); GitHub's own retry-after is always honoured in full.
	MaxPause time.Duration `yaml:"max_pause"`
}

// Budget is the block as the GitHub client takes it.
func (b GitHubBudget) Budget() githubx.Budget {
	return githubx.Budget{Concurrent: b.ConcurrentRequests, PointsPerMinute: b.PointsPerMinute,
		WritesPerMinute: b.WritesPerMinute, WritesPerHour: b.WritesPerHour, Minute: b.Minute, Hour: b.Hour,
		MaxPause: b.MaxPause}
}

// applyDefaults fills zero fields with GitHub's numbers; negative ones are
// left for validate to report.
func (b *GitHubBudget) applyDefaults() {
	d := githubx.Budget{Concurrent: b.ConcurrentRequests, PointsPerMinute: b.PointsPerMinute,
		WritesPerMinute: b.WritesPerMinute, WritesPerHour: b.WritesPerHour, Minute: b.Minute, Hour: b.Hour,
		MaxPause: b.MaxPause}.WithDefaults()
	*b = GitHubBudget{ConcurrentRequests: d.Concurrent, PointsPerMinute: d.PointsPerMinute, WritesPerMinute: d.WritesPerMinute,
		WritesPerHour: d.WritesPerHour, Minute: d.Minute, Hour: d.Hour, MaxPause: d.MaxPause}
}

// validate reports a budget the client would refuse, naming the block.
func (b GitHubBudget) validate() error {
	if err := b.Budget().Validate(); err != nil {
		return fmt.Errorf("github.budget: %w", err)
	}
	return nil
}
