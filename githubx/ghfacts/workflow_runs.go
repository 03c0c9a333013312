package ghfacts

import (
	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// WorkflowRun turns a GitHub Actions run into what tells whose run it is:
// its status, event, head commit, branch and repository, and the numbers
// of the pull requests GitHub lists for it (none numbered zero or less;
// GitHub lists none for the run of a pull request from a fork).
func WorkflowRun(r *github.WorkflowRun) *queue.WorkflowRun {
	out := &queue.WorkflowRun{
		ID:         r.GetID(),
		Status:     r.GetStatus(),
		Event:      r.GetEvent(),
		HeadSHA:    r.GetHeadSHA(),
		HeadBranch: r.GetHeadBranch(),
		HeadRepo:   r.GetHeadRepository().GetFullName(),
	}
	for _, pr := range r.PullRequests {
		if n := pr.GetNumber(); n > 0 {
			out.PullRequests = append(out.PullRequests, n)
		}
	}
	return out
}
