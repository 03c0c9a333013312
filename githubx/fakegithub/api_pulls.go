package fakegithub

import (
	"fmt"

	"github.com/google/go-github/v66/github"
)

// PREdit changes a PR's title, body or base (nil fields are unchanged).
type PREdit struct {
	Title *string
	Body  *string
	Base  *string
}

// withPR runs fn with the repo locked and PR number looked up.
func (s *Server) withPR(owner, name string, number int, fn func(r *repo, pr *pullRequest) error) error {
	r, err := s.repo(owner, name)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, err := r.pr(number)
	if err != nil {
		return fmt.Errorf("failed to find pull request #%d: %w", number, err)
	}
	return fn(r, pr)
}

// OpenPR opens a pull request as p.Author and sends "opened".
func (s *Server) OpenPR(owner, name string, p PROptions) (int, error) {
	r, err := s.repo(owner, name)
	if err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, err := r.openPR(p)
	if err != nil {
		return 0, fmt.Errorf("failed to open pull request: %w", err)
	}
	return pr.number, nil
}

// PushToPR adds a commit with files on the PR's head branch (push and
// "synchronize" webhooks, as the PR author).
func (s *Server) PushToPR(owner, name string, number int, files map[string]string) (string, error) {
	var sha string
	err := s.withPR(owner, name, number, func(r *repo, pr *pullRequest) error {
		var err error
		sha, err = r.commitFiles(pr.headRef, "", files, fmt.Sprintf("Update #%d", number), pr.author)
		return err
	})
	return sha, err
}

// ForcePushPR replaces the PR's head with one new commit on the merge base
// of head and base, holding the merge base's files plus files (a forced
// push and "synchronize").
func (s *Server) ForcePushPR(owner, name string, number int, files map[string]string) (string, error) {
	var sha string
	err := s.withPR(owner, name, number, func(r *repo, pr *pullRequest) error {
		head, ok, err := r.branchSHA(pr.headRef)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("failed to force-push: head branch %s is gone", pr.headRef)
		}
		base, ok, err := r.branchSHA(pr.baseRef)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("failed to force-push: base branch %s is gone", pr.baseRef)
		}
		mb, err := r.git.mergeBase(base, head)
		if err != nil {
			return err
		}
		if mb == "" {
			mb = base
		}
		tree, err := r.git.writeTree(mb, files)
		if err != nil {
			return err
		}
		sig := r.s.sig(pr.author)
		if sha, err = r.git.commitTree(tree, []string{mb}, fmt.Sprintf("Rewrite #%d\n", number), sig, sig); err != nil {
			return err
		}
		return r.moveRef("refs/heads/"+pr.headRef, head, sha, pr.author)
	})
	return sha, err
}

// Comment posts a comment on a PR as user (issue_comment "created").
func (s *Server) Comment(owner, name string, number int, user, body string) (int64, error) {
	var id int64
	err := s.withPR(owner, name, number, func(r *repo, pr *pullRequest) error {
		id = r.addComment(pr, user, body).GetID()
		return nil
	})
	return id, err
}

// AddLabel labels a PR as user ("labeled"; no-op if already labeled).
func (s *Server) AddLabel(owner, name string, number int, user, label string) error {
	return s.withPR(owner, name, number, func(r *repo, pr *pullRequest) error {
		r.addLabel(pr, label, user)
		return nil
	})
}

// RemoveLabel removes a label as user ("unlabeled").
func (s *Server) RemoveLabel(owner, name string, number int, user, label string) error {
	return s.withPR(owner, name, number, func(r *repo, pr *pullRequest) error {
		if !r.removeLabel(pr, label, user) {
			return fmt.Errorf("failed to remove label %q: not on #%d", label, number)
		}
		return nil
	})
}

// ClosePR closes a PR without merging as user ("closed").
func (s *Server) ClosePR(owner, name string, number int, user string) error {
	return s.withPR(owner, name, number, func(r *repo, pr *pullRequest) error {
		r.closePR(pr, user)
		return nil
	})
}

// ReopenPR reopens a closed PR as user ("reopened").
func (s *Server) ReopenPR(owner, name string, number int, user string) error {
	return s.withPR(owner, name, number, func(r *repo, pr *pullRequest) error {
		return r.reopenPR(pr, user)
	})
}

// SetDraft converts a PR to draft ("converted_to_draft") or marks it ready
// ("ready_for_review") as user.
func (s *Server) SetDraft(owner, name string, number int, user string, draft bool) error {
	return s.withPR(owner, name, number, func(r *repo, pr *pullRequest) error {
		r.setDraft(pr, draft, user)
		return nil
	})
}

// EditPR edits a PR as user ("edited" with changes).
func (s *Server) EditPR(owner, name string, number int, user string, e PREdit) error {
	return s.withPR(owner, name, number, func(r *repo, pr *pullRequest) error {
		return r.editPR(pr, prEdit{Title: e.Title, Body: e.Body, Base: e.Base}, user)
	})
}

// MergePRManually merges a PR with a merge commit as user (as if from the
// web UI) and returns the new base tip.
func (s *Server) MergePRManually(owner, name string, number int, user string) (string, error) {
	var sha string
	err := s.withPR(owner, name, number, func(r *repo, pr *pullRequest) error {
		var err error
		sha, err = r.mergePR(pr, mergeReq{Method: "merge"}, user)
		return err
	})
	return sha, err
}

// SetMergeableUnknown makes the next times GETs of PR number in repo
// ("owner/name") answer mergeable: null, mergeable_state: "unknown", as
// GitHub does while it computes mergeability.
func (s *Server) SetMergeableUnknown(repo string, number, times int) error {
	r, err := s.repoByFullName(repo)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, err := r.pr(number)
	if err != nil {
		return fmt.Errorf("failed to find pull request #%d: %w", number, err)
	}
	pr.unknownGets = times
	return nil
}

// PR returns a PR as the API renders it, with mergeability computed.
func (s *Server) PR(owner, name string, number int) (*github.PullRequest, error) {
	var out *github.PullRequest
	err := s.withPR(owner, name, number, func(r *repo, pr *pullRequest) error {
		var err error
		out, err = r.prJSONFull(pr)
		return err
	})
	return out, err
}

// Comments lists a PR's comments, oldest first.
func (s *Server) Comments(owner, name string, number int) []*github.IssueComment {
	r, err := s.repo(owner, name)
	if err != nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prComments(number)
}

// Reactions lists the reaction contents on a comment, oldest first.
func (s *Server) Reactions(commentID int64) []string {
	s.mu.Lock()
	r, ok := s.commentRepo[commentID]
	s.mu.Unlock()
	if !ok {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	cm, ok := r.comments[commentID]
	if !ok {
		return nil
	}
	out := []string{}
	for _, re := range cm.reactions {
		out = append(out, re.GetContent())
	}
	return out
}
