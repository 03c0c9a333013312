package service

import (
	"context"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// diffGitHub answers TreeSHA and DiffFiles from tables; other methods are
// not used by landedMismatch.
type diffGitHub struct {
	queue.GitHub
	trees map[string]string
	diffs map[string]map[string]string // "base...head" → path → blob
}

func (d *diffGitHub) TreeSHA(_ context.Context, _ queue.Repo, sha string) (string, error) {
	return d.trees[sha], nil
}

func (d *diffGitHub) DiffFiles(_ context.Context, _ queue.Repo, base, head string) (map[string]string, bool, error) {
	return d.diffs[base+"..."+head], true, nil
}

func TestLandedMismatch(t *testing.T) {
	// The run tested PR head P (which changes a.go and c.go since it forked
	// from the target) on base B, on top of a dependency that changed d.go;
	// P was merged onto M, giving L.
	run := &queue.TestRun{ID: "r", BaseSHA: "B", SHA: "T", PRSHAs: []string{"P"}}
	own := map[string]string{"a.go": "x1", "c.go": ""}
	tests := []struct {
		name string
		mode queue.Mode
		gh   *diffGitHub
		want string // substring of the mismatch; "" = verified
	}{
		{"single: equal trees", queue.ModeSingle, &diffGitHub{trees: map[string]string{"L": "t1", "T": "t1"}}, ""},
		{"single: different trees", queue.ModeSingle, &diffGitHub{trees: map[string]string{"L": "t1", "T": "t2"}}, "differs from the tested commit"},
		{"parallel: other paths changed meanwhile", queue.ModeParallel, &diffGitHub{diffs: map[string]map[string]string{
			"M...P": own, "B...T": {"a.go": "x1", "c.go": ""}, "B...L": {"a.go": "x1", "b.go": "y1", "c.go": ""}}}, ""},
		{"parallel: an independent PR changed a dependency's file", queue.ModeParallel, &diffGitHub{diffs: map[string]map[string]string{
			"M...P": own, "B...T": {"a.go": "x1", "c.go": "", "d.go": "z1"}, "B...L": {"a.go": "x1", "c.go": "", "d.go": "z2"}}}, ""},
		{"parallel: a tested path lost its content", queue.ModeParallel, &diffGitHub{diffs: map[string]map[string]string{
			"M...P": own, "B...T": {"a.go": "x1", "c.go": ""}, "B...L": {"a.go": "x2", "c.go": ""}}}, "a.go"},
		{"parallel: a tested change did not land", queue.ModeParallel, &diffGitHub{diffs: map[string]map[string]string{
			"M...P": own, "B...T": {"a.go": "x1", "c.go": ""}, "B...L": {"b.go": "y1"}}}, "a.go, c.go"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := queue.DefaultSettings()
			st.Mode = tc.mode
			q := &queue.Queue{Key: queue.QueueKey{Branch: "main"}, Settings: st}
			s := NewService(nil, tc.gh, Options{})
			got, err := s.landedMismatch(context.Background(), q, run, 0, "M", "L")
			if err != nil {
				t.Fatal(err)
			}
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("mismatch %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLandedMismatchBatchMember: in parallel mode each member of a batch is
// checked as it lands, on its paths that no later member changes too.
func TestLandedMismatchBatchMember(t *testing.T) {
	st := queue.DefaultSettings()
	st.Mode = queue.ModeParallel
	q := &queue.Queue{Key: queue.QueueKey{Branch: "main"}, Settings: st}
	run := &queue.TestRun{ID: "r", BaseSHA: "B", SHA: "T", EntryIDs: []string{"e1", "e2"}, PRSHAs: []string{"P", "Q"}}
	diffs := func(landed map[string]string) *diffGitHub {
		return &diffGitHub{diffs: map[string]map[string]string{
			"M...P": {"a.go": "a1", "b.go": "b1"}, "M...Q": {"b.go": "b2"},
			"B...T": {"a.go": "a1", "b.go": "b12"}, "B...L": landed}}
	}
	for _, tc := range []struct {
		name   string
		landed map[string]string
		want   string
	}{
		{"a path the later member changes too is left for its landing", map[string]string{"a.go": "a1", "b.go": "b1"}, ""},
		{"the member's own path is checked", map[string]string{"a.go": "a0", "b.go": "b1"}, "a.go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewService(nil, diffs(tc.landed), Options{})
			got, err := s.landedMismatch(context.Background(), q, run, 0, "M", "L")
			if err != nil {
				t.Fatal(err)
			}
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("mismatch %q, want %q", got, tc.want)
			}
		})
	}
}
