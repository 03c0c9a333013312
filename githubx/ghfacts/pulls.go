package ghfacts

import (
	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// PullRequest turns a pull request object into queue facts.
//
//   - ReadAt is GitHub's updated_at in UTC (zero when GitHub gives none):
//     the facts are as of that moment, the same clock for webhooks, which
//     can arrive late and out of order, and for reads.
//   - MergeCommitSHA is merge_commit_sha only for a merged pull request.
//     Before a merge GitHub sets it to the test merge of head and base,
//     which never lands; only a merged pull request's is the commit that
//     landed (the one the queue records and verifies).
//   - HeadRepo is head.repo.full_name: the repository itself, or the fork
//     of a pull request from a fork; "" when GitHub omits the repository
//     (a deleted fork).
//   - Mergeable is nil while GitHub computes it; the copy is the caller's.
func PullRequest(pr *github.PullRequest) queue.PullRequest {
	facts := queue.PullRequest{
		Number:   pr.GetNumber(),
		HeadRef:  pr.GetHead().GetRef(),
		HeadRepo: pr.GetHead().GetRepo().GetFullName(),
		PRFacts: queue.PRFacts{
			Title:          pr.GetTitle(),
			Body:           pr.GetBody(),
			Author:         pr.GetUser().GetLogin(),
			HeadSHA:        pr.GetHead().GetSHA(),
			BaseBranch:     pr.GetBase().GetRef(),
			Open:           pr.GetState() == "open",
			Draft:          pr.GetDraft(),
			Merged:         pr.GetMerged(),
			MergeableState: pr.GetMergeableState(),
			ReadAt:         utc(pr.GetUpdatedAt()),
		},
	}
	if facts.Merged {
		facts.MergeCommitSHA = pr.GetMergeCommitSHA()
	}
	if pr.Mergeable != nil {
		m := *pr.Mergeable
		facts.Mergeable = &m
	}
	return facts
}
