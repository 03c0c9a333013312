package fakegithub

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
)

// mergeReq is a PUT /pulls/{n}/merge request.
type mergeReq struct {
	Method  string  `json:"merge_method"`
	SHA     string  `json:"sha"`
	Title   string  `json:"commit_title"`
	Message *string `json:"commit_message"`
}

var errNotMergeable = &apiError{status: http.StatusMethodNotAllowed, msg: "Pull Request is not mergeable"}

// mergePR merges a PR into its base with GitHub's semantics and returns the
// new base tip: 409 if req.SHA is not the head, 405 if the PR is closed,
// a draft or conflicts. Caller holds r.mu.
func (r *repo) mergePR(pr *pullRequest, req mergeReq, merger string) (string, error) {
	if pr.state != "open" {
		return "", errNotMergeable
	}
	if req.SHA != "" && req.SHA != pr.headSHA {
		return "", &apiError{status: http.StatusConflict, msg: "Head branch was modified. Review and try the merge again."}
	}
	if pr.draft {
		return "", &apiError{status: http.StatusMethodNotAllowed, msg: "Pull Request is still a draft"}
	}
	if missing := r.missingRequired(pr); missing != "" {
		return "", &apiError{status: http.StatusMethodNotAllowed, msg: fmt.Sprintf("Required status check %q is expected.", missing)}
	}
	base, ok, err := r.branchSHA(pr.baseRef)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errNotMergeable
	}
	var sha string
	switch req.Method {
	case "", "merge":
		sha, err = r.mergeCommitFor(pr, base, req, merger)
	case "squash":
		sha, err = r.squashCommitFor(pr, base, req)
	case "rebase":
		sha, err = r.rebaseCommitsFor(pr, base)
	default:
		return "", errValidation("Validation Failed: merge_method must be one of merge, squash, rebase")
	}
	if err != nil {
		return "", err
	}
	saved := *pr
	r.markMerged(pr, sha, merger)
	if err := r.moveRef("refs/heads/"+pr.baseRef, base, sha, merger); err != nil {
		*pr = saved
		return "", err
	}
	r.emitPR(pr, "closed", merger, nil)
	return sha, nil
}

// markMerged records a PR as merged (no event). Caller holds r.mu.
func (r *repo) markMerged(pr *pullRequest, sha, by string) {
	now := time.Now().UTC()
	pr.state, pr.merged, pr.mergeCommitSHA, pr.mergedBy = "closed", true, sha, by
	pr.mergedAt, pr.closedAt, pr.updatedAt = now, now, now
	pr.baseSHA = sha
}

// joinMessage builds "title\n\nbody".
func joinMessage(title, body string) string {
	if body == "" {
		return title + "\n"
	}
	return title + "\n\n" + body + "\n"
}

// mergeCommitFor writes the 2-parent merge commit of the PR head into base.
func (r *repo) mergeCommitFor(pr *pullRequest, base string, req mergeReq, merger string) (string, error) {
	tree, conflict, err := r.git.mergeTree(base, pr.headSHA)
	if err != nil {
		return "", err
	}
	if conflict {
		return "", errNotMergeable
	}
	title := req.Title
	if title == "" {
		title = fmt.Sprintf("Merge pull request #%d from %s/%s", pr.number, r.owner, pr.headRef)
	}
	body := pr.title
	if req.Message != nil {
		body = *req.Message
	}
	return r.git.commitTree(tree, []string{base, pr.headSHA}, joinMessage(title, body), r.s.sig(merger), r.s.githubSig())
}

// squashCommitFor writes one commit on base with the merged tree, authored
// by the PR author.
func (r *repo) squashCommitFor(pr *pullRequest, base string, req mergeReq) (string, error) {
	tree, conflict, err := r.git.mergeTree(base, pr.headSHA)
	if err != nil {
		return "", err
	}
	if conflict {
		return "", errNotMergeable
	}
	title := req.Title
	if title == "" {
		title = fmt.Sprintf("%s (#%d)", pr.title, pr.number)
	}
	var body string
	if req.Message != nil {
		body = *req.Message
	} else {
		shas, err := r.git.revList(base, pr.headSHA, false)
		if err != nil {
			return "", err
		}
		var lines []string
		for _, s := range shas {
			ci, err := r.git.commit(s)
			if err != nil {
				return "", err
			}
			subject, _, _ := strings.Cut(ci.Message, "\n")
			lines = append(lines, "* "+subject)
		}
		body = strings.Join(lines, "\n")
	}
	return r.git.commitTree(tree, []string{base}, joinMessage(title, body), r.s.sig(pr.author), r.s.githubSig())
}

// rebaseCommitsFor replays each PR commit (oldest first) onto base,
// keeping messages and authors; a conflict in any step is a 405.
func (r *repo) rebaseCommitsFor(pr *pullRequest, base string) (string, error) {
	shas, err := r.git.revList(base, pr.headSHA, false)
	if err != nil {
		return "", err
	}
	if len(shas) == 0 {
		return "", errNotMergeable
	}
	cur := base
	for _, s := range shas {
		ci, err := r.git.commit(s)
		if err != nil {
			return "", err
		}
		parentTree := emptyTreeSHA
		if len(ci.Parents) > 0 {
			if parentTree, err = r.git.treeOf(ci.Parents[0]); err != nil {
				return "", err
			}
		}
		curTree, err := r.git.treeOf(cur)
		if err != nil {
			return "", err
		}
		tree, conflict, err := r.git.cherryPickTree(parentTree, curTree, ci.Tree, r.s.githubSig())
		if err != nil {
			return "", err
		}
		if conflict {
			return "", errNotMergeable
		}
		if cur, err = r.git.commitTree(tree, []string{cur}, ci.Message, ci.Author, r.s.githubSig()); err != nil {
			return "", err
		}
	}
	return cur, nil
}

func handleMergePull(c *reqCtx) {
	var req mergeReq
	if !c.decode(&req) {
		return
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, ok := c.prOrFail()
	if !ok {
		return
	}
	sha, err := r.mergePR(pr, req, c.actor)
	if err != nil {
		c.fail(err)
		return
	}
	c.json(http.StatusOK, &github.PullRequestMergeResult{
		SHA:     github.String(sha),
		Merged:  github.Bool(true),
		Message: github.String("Pull Request successfully merged"),
	})
}
