package service

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/mergequeue/mq/queue"
)

// A queue builds its test branches on one scratch ref of its own, its
// lane (mq-temp/lane-<queue id>), kept between builds instead of created
// and deleted for each: a run built on the run before it merges its PRs
// onto the lane where the last build left it, so its scratch costs no ref
// write. The queue's worker serialises a queue's builds, so one lane per
// queue is never used by two builds at once. Where a lane stands is kept
// in memory: after a restart it is unknown, and the first build moves it.

// lanePrefix names the lanes under the scratch prefix.
const lanePrefix = queue.ScratchPrefix + "lane-"

// laneName is the lane of a queue.
func laneName(queueID int64) string { return lanePrefix + strconv.FormatInt(queueID, 10) }

// laneQueue returns the queue a lane belongs to, and whether name is one.
func laneQueue(name string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, lanePrefix)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	return id, err == nil && id > 0 && strconv.FormatInt(id, 10) == rest
}

// laneBook remembers where each queue's lane was left ("" = unknown) and
// which lanes are recorded in the store.
type laneBook struct {
	mu       sync.Mutex
	at       map[int64]string
	recorded map[int64]bool
}

func newLaneBook() *laneBook {
	return &laneBook{at: map[int64]string{}, recorded: map[int64]bool{}}
}

func (l *laneBook) get(queueID int64) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.at[queueID]
}

func (l *laneBook) set(queueID int64, sha string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.at[queueID] = sha
}

// lane returns q's lane, recorded in the store (once per process) so that
// the reconciler's sweep knows it as the queue's, not as a stray branch.
func (s *Service) lane(ctx context.Context, q *queue.Queue) (string, error) {
	name := laneName(q.ID)
	s.lanes.mu.Lock()
	done := s.lanes.recorded[q.ID]
	s.lanes.mu.Unlock()
	if done {
		return name, nil
	}
	if err := s.store.RecordRef(ctx, queue.Ref{Repo: q.Key.Repo, Name: name, QueueID: q.ID, CreatedAt: s.now()}); err != nil {
		return "", fmt.Errorf("failed to record the lane %s: %w", name, err)
	}
	s.lanes.mu.Lock()
	s.lanes.recorded[q.ID] = true
	s.lanes.mu.Unlock()
	return name, nil
}

// maxFoldedDeletes bounds the ended branches deleted with one publish.
const maxFoldedDeletes = 50

// deadBranches lists recorded branches of repo that no live run owns (at
// most maxFoldedDeletes), for a build to delete in the request that
// publishes its own branch: none while another run of the repository is
// being built (on this replica or another), whose build may be deleting
// the same ones (GitHub refuses a request that deletes a missing branch).
func (s *Service) deadBranches(ctx context.Context, repo queue.Repo) ([]string, error) {
	refs, err := s.store.ListRefs(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("failed to list the recorded branches: %w", err)
	}
	var out []string
	for _, ref := range refs {
		live, run, err := s.rec.owner(ctx, ref)
		if err != nil {
			return nil, err
		}
		if s.rec.building(run) {
			return nil, nil
		}
		if !live && len(out) < maxFoldedDeletes {
			out = append(out, ref.Name)
		}
	}
	return out, nil
}

// forgetDeleted forgets the branches a build deleted.
func (s *Service) forgetDeleted(ctx context.Context, repo queue.Repo, names []string) error {
	var errs []error
	for _, n := range names {
		errs = append(errs, s.store.ForgetRef(ctx, repo, n))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("failed to forget deleted branches: %w", err)
	}
	return nil
}
