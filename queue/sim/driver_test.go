package sim

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// lyingCI reports every check as passing: Bad PRs get through.
type lyingCI struct{ queue.GitHub }

func (l lyingCI) Checks(ctx context.Context, repo queue.Repo, sha string) ([]queue.CheckResult, error) {
	cs, err := l.GitHub.Checks(ctx, repo, sha)
	for i := range cs {
		cs[i].State = queue.CheckSuccess
	}
	return cs, err
}

// aheadDropper builds test branches without the PRs ahead of the unit: a
// wrong predicted base.
type aheadDropper struct{ queue.GitHub }

func (a aheadDropper) BuildBranch(ctx context.Context, repo queue.Repo, spec queue.BranchSpec) (queue.Built, error) {
	if n := len(spec.Heads); n > 1 && strings.HasPrefix(spec.Name, TestBranchPrefix) {
		spec.Heads = spec.Heads[n-1:]
	}
	return a.GitHub.BuildBranch(ctx, repo, spec)
}

// TestSuiteCatchesBrokenPorts proves the suite has teeth: with the port
// broken on purpose (CI that always passes, test branches without the PRs
// ahead), some seed fails with the expected complaint.
func TestSuiteCatchesBrokenPorts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		wrap func(queue.GitHub) queue.GitHub
		want []string // one of these in the failure
	}{
		{"CI results ignored", func(g queue.GitHub) queue.GitHub { return lyingCI{g} }, []string{"Bad", "no passing test commit"}},
		{"PRs ahead left out of the test", func(g queue.GitHub) queue.GitHub { return aheadDropper{g} }, []string{"no passing test commit", "Bad"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= 500; seed++ {
				d, err := NewDriver(seed, DriverOptions{WrapGitHub: tc.wrap})
				if err != nil {
					t.Fatal(err)
				}
				if err := d.Run(); err != nil {
					if !slices.ContainsFunc(tc.want, func(w string) bool { return strings.Contains(err.Error(), w) }) {
						t.Fatalf("seed %d failed with %v, want one of %q", seed, err, tc.want)
					}
					return
				}
			}
			t.Errorf("500 seeds passed with a broken port")
		})
	}
}

// TestDriverIsDeterministic runs seeds twice and compares the logs.
func TestDriverIsDeterministic(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2, 3} {
		var logs [2][]string
		for i := range logs {
			d, err := NewDriver(seed, DriverOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_ = d.Run()
			logs[i] = d.Log()
		}
		if !slices.Equal(logs[0], logs[1]) {
			t.Errorf("seed %d: two runs logged differently", seed)
		}
	}
}
