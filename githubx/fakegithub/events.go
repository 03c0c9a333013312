package fakegithub

import (
	"strings"

	"github.com/google/go-github/v66/github"
)

// Event builders. Each is called with r.mu held, at the moment the event
// happens, so webhooks are queued in the order of the changes.

// emitPR queues a pull_request event.
func (r *repo) emitPR(pr *pullRequest, action, sender string, mod func(*github.PullRequestEvent)) {
	ev := &github.PullRequestEvent{
		Action:       github.String(action),
		Number:       github.Int(pr.number),
		PullRequest:  r.prJSON(pr, nil, ""),
		Repo:         r.apiRepo(),
		Sender:       r.s.user(sender),
		Installation: r.s.installationRef(),
	}
	if mod != nil {
		mod(ev)
	}
	r.s.emit("pull_request", action, ev)
}

// emitPush queues a push event for a ref update (after = zeroSHA when the
// ref was deleted, before = zeroSHA when created).
func (r *repo) emitPush(ref, before, after string, forced bool, sender string) {
	pusher := r.s.user(sender)
	ev := &github.PushEvent{
		Ref:     github.String(ref),
		Before:  github.String(before),
		After:   github.String(after),
		Created: github.Bool(before == zeroSHA),
		Deleted: github.Bool(after == zeroSHA),
		Forced:  github.Bool(forced),
		Compare: github.String(r.htmlURL() + "/compare/" + before[:12] + "..." + after[:12]),
		Repo: &github.PushEventRepository{
			ID:            github.Int64(r.id),
			Name:          github.String(r.name),
			FullName:      github.String(r.fullName()),
			Owner:         r.s.user(r.owner),
			DefaultBranch: github.String("main"),
			MasterBranch:  github.String("main"),
			HTMLURL:       github.String(r.htmlURL()),
			URL:           github.String(r.htmlURL()),
		},
		Pusher:       &github.CommitAuthor{Name: github.String(sender), Email: github.String(sender + "@users.noreply.github.com"), Login: github.String(sender)},
		Sender:       pusher,
		Installation: r.s.installationRef(),
	}
	if after != zeroSHA {
		base := ""
		if before != zeroSHA {
			base = before
		}
		shas, err := r.git.revList(base, after, false)
		if err == nil {
			if len(shas) > 20 {
				shas = shas[len(shas)-20:]
			}
			for _, sha := range shas {
				if hc := r.headCommit(sha); hc != nil {
					ev.Commits = append(ev.Commits, hc)
				}
			}
		}
		ev.HeadCommit = r.headCommit(after)
		ev.Size = github.Int(len(ev.Commits))
		ev.DistinctSize = github.Int(len(ev.Commits))
	}
	r.s.emit("push", "", ev)
}

// headCommit renders a commit as push events list it.
func (r *repo) headCommit(sha string) *github.HeadCommit {
	ci, err := r.git.commit(sha)
	if err != nil {
		return nil
	}
	return &github.HeadCommit{
		ID:        github.String(ci.SHA),
		TreeID:    github.String(ci.Tree),
		Message:   github.String(strings.TrimRight(ci.Message, "\n")),
		Timestamp: &github.Timestamp{Time: ci.Committer.When},
		Author:    commitAuthor(ci.Author),
		Committer: commitAuthor(ci.Committer),
		URL:       github.String(r.htmlURL() + "/commit/" + ci.SHA),
		Distinct:  github.Bool(true),
	}
}

// emitIssueComment queues an issue_comment event for a PR comment.
func (r *repo) emitIssueComment(pr *pullRequest, cm *github.IssueComment, action, sender string, changes *github.EditChange) {
	r.s.emit("issue_comment", action, &github.IssueCommentEvent{
		Action:       github.String(action),
		Issue:        r.issueJSON(pr),
		Comment:      cm,
		Changes:      changes,
		Repo:         r.apiRepo(),
		Sender:       r.s.user(sender),
		Installation: r.s.installationRef(),
	})
}

// emitStatus queues a status event.
func (r *repo) emitStatus(st *github.RepoStatus, sha, sender string) {
	ev := &github.StatusEvent{
		ID:           st.ID,
		SHA:          github.String(sha),
		Name:         github.String(r.fullName()),
		State:        st.State,
		Description:  st.Description,
		TargetURL:    st.TargetURL,
		Context:      st.Context,
		CreatedAt:    st.CreatedAt,
		UpdatedAt:    st.UpdatedAt,
		Repo:         r.apiRepo(),
		Sender:       r.s.user(sender),
		Installation: r.s.installationRef(),
	}
	if rc, err := r.repositoryCommit(sha); err == nil {
		ev.Commit = rc
	}
	for _, b := range r.branchesAt(sha) {
		ev.Branches = append(ev.Branches, &github.Branch{
			Name:   github.String(b),
			Commit: &github.RepositoryCommit{SHA: github.String(sha), URL: github.String(r.apiURL() + "/commits/" + sha)},
		})
	}
	r.s.emit("status", "", ev)
}

// emitCheckRun queues a check_run event.
func (r *repo) emitCheckRun(cr *github.CheckRun, action, sender string) {
	r.s.emit("check_run", action, &github.CheckRunEvent{
		Action:       github.String(action),
		CheckRun:     cr,
		Repo:         r.apiRepo(),
		Sender:       r.s.user(sender),
		Installation: r.s.installationRef(),
	})
}

// emitCheckSuite queues a check_suite event.
func (r *repo) emitCheckSuite(suite *github.CheckSuite, action, sender string) {
	r.s.emit("check_suite", action, &github.CheckSuiteEvent{
		Action:       github.String(action),
		CheckSuite:   suite,
		Repo:         r.apiRepo(),
		Sender:       r.s.user(sender),
		Installation: r.s.installationRef(),
	})
}

// branchesAt lists branches whose head is sha (for status events).
func (r *repo) branchesAt(sha string) []string {
	refs, err := r.git.refs("refs/heads/")
	if err != nil {
		return nil
	}
	var out []string
	for ref, s := range refs {
		if s == sha {
			out = append(out, strings.TrimPrefix(ref, "refs/heads/"))
		}
	}
	return out
}
