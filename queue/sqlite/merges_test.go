package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

func TestMerges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	other := mustQueue(t, s, "dev")
	var all []queue.MergeRecord
	for i := 1; i <= 5; i++ {
		m := queue.MergeRecord{QueueID: q.ID, EntryID: "e", PRNumber: i, RunID: "r", Before: "b", After: "a",
			At: at(time.Duration(i) * time.Second)}
		if err := s.AddMerge(ctx, m); err != nil {
			t.Fatal(err)
		}
		all = append(all, m)
		if err := s.AddMerge(ctx, queue.MergeRecord{QueueID: other.ID, PRNumber: 100 + i}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		limit int
		want  []queue.MergeRecord
	}{
		{"all", 0, all},
		{"negative is all", -1, all},
		{"last two, oldest first", 2, all[3:]},
		{"limit above count", 50, all},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ListMerges(ctx, q.ID, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			assertEqual(t, got, tc.want)
		})
	}
	if got, err := s.ListMerges(ctx, 9999, 0); err != nil || len(got) != 0 {
		t.Errorf("ListMerges(unknown queue) = %v, %v", got, err)
	}
}
