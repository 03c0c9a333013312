package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/mergequeue/mq/queue"
)

// RecordCheck inserts or replaces the result for (repo, SHA, Kind, Name); a
// result older (UpdatedAt, the zero time oldest) than the stored one is
// ignored, an equally old one replaces it.
func (o *ops) RecordCheck(ctx context.Context, repo queue.Repo, c queue.CheckResult) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to record check %s %q on %s@%s: %w", c.Kind, c.Name, repo, c.SHA, err)
	}
	defer unlock()
	if err := normTimes(&c.UpdatedAt); err != nil {
		return fmt.Errorf("failed to record check %s %q on %s@%s: %w", c.Kind, c.Name, repo, c.SHA, err)
	}
	d := o.d
	ck, kk := commitKey{repo.Fold(), c.SHA}, checkKey{c.Kind, c.Name}
	set, ok := d.checks[ck]
	if !ok {
		set = map[checkKey]queue.CheckResult{}
		d.checks[ck] = set
	}
	old, existed := set[kk]
	if existed && nullTimeCompare(c.UpdatedAt, old.UpdatedAt) < 0 {
		return nil
	}
	set[kk] = c
	o.tx.add(func() {
		if existed {
			d.checks[ck][kk] = old
			return
		}
		drop(d.checks, ck, kk)
	})
	return nil
}

// ListChecks returns every recorded result on a commit of repo, ordered by
// kind and name.
func (o *ops) ListChecks(ctx context.Context, repo queue.Repo, sha string) ([]queue.CheckResult, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list checks on %s@%s: %w", repo, sha, err)
	}
	defer unlock()
	var out []queue.CheckResult
	for _, c := range o.d.checks[commitKey{repo.Fold(), sha}] {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b queue.CheckResult) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}
