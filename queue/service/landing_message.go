package service

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
)

// landingHeadMessage is the message of the merge commit of PR number into
// a test branch whose commit may land by fast-forward: what GitHub's merge
// endpoint would write, so that the target branch's history reads as
// after PR merges: "Merge pull request #N from owner/branch" (or the PR
// body's merge-commit-title: line), a blank line, the PR title. A unit
// tested again gets a new commit: attempt > 1 adds a trailer, so its SHA
// differs from the commit whose checks are recorded.
func landingHeadMessage(number int, headOwner, headRef, title, body string, attempt int) string {
	first := mergeTitle(body)
	if first == "" {
		first = fmt.Sprintf("Merge pull request #%d from %s/%s", number, headOwner, headRef)
	}
	msg := first + "\n"
	if title != "" {
		msg += "\n" + title + "\n"
	}
	if attempt > 1 {
		msg += fmt.Sprintf("\nMerge-Queue-Attempt: %d\n", attempt)
	}
	return msg
}

// headBook remembers the head branch of the PRs whose test merge messages
// it wrote (a PR's head branch never changes), so a PR built into several
// test branches is read once.
type headBook struct {
	mu    sync.Mutex
	heads map[string][2]string // "owner/name#N" → head owner, head branch
}

func (b *headBook) get(repo queue.Repo, number int) ([2]string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	h, ok := b.heads[fmt.Sprintf("%s#%d", strings.ToLower(repo.FullName()), number)]
	return h, ok
}

func (b *headBook) put(repo queue.Repo, number int, h [2]string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.heads == nil || len(b.heads) > 10000 {
		b.heads = map[string][2]string{}
	}
	b.heads[fmt.Sprintf("%s#%d", strings.ToLower(repo.FullName()), number)] = h
}

// landingMessages returns, for a queue landing by fast-forward, the
// function that writes GitHub's merge messages on a test branch's heads
// (entries in a.Merge order; the unit's attempt as startRun counts it),
// reading the head branch of the PRs it does not know; nil otherwise.
// It is called without the lock, before the branch is built.
func (s *Service) landingMessages(snap *engine.Snapshot, a engine.StartRun) func(ctx context.Context, heads []queue.MergeHead) error {
	q := snap.Queue
	if _, ok := s.landsByFastForward(q); !ok || a.Isolation {
		return nil
	}
	type fact struct {
		title, body string
		attempt     int
	}
	facts := make([]fact, len(a.Merge))
	for i, id := range a.Merge {
		if e := snap.Entry(id); e != nil {
			facts[i] = fact{title: e.PR.Title, body: e.PR.Body}
			for _, u := range a.Unit {
				if u == id {
					facts[i].attempt = e.CheckAttempts + e.ChecksMissing + 1
				}
			}
		}
	}
	return func(ctx context.Context, heads []queue.MergeHead) error {
		for i := range heads {
			h, ok := s.prHeads.get(q.Key.Repo, heads[i].PRNumber)
			if !ok {
				pr, err := s.gh.GetPullRequest(ctx, q.Key.Repo, heads[i].PRNumber)
				if err != nil {
					return fmt.Errorf("failed to read the head branch of #%d for its merge message: %w", heads[i].PRNumber, err)
				}
				owner, _, _ := strings.Cut(pr.HeadRepo, "/")
				if owner == "" {
					owner = q.Key.Repo.Owner
				}
				h = [2]string{owner, pr.HeadRef}
				s.prHeads.put(q.Key.Repo, heads[i].PRNumber, h)
			}
			f := facts[i]
			heads[i].Message = landingHeadMessage(heads[i].PRNumber, h[0], h[1], f.title, f.body, f.attempt)
		}
		return nil
	}
}
