package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
	"github.com/mergequeue/mq/queue/textsafe"
)

// DefaultTestPRTitle is the template of a test PR's title: the PRs it tests,
// never the bare branch name (SPEC §6).
const DefaultTestPRTitle = "merge queue: {{.PRs}}"

// TestPRTitleData is what a test PR's title template is executed with.
type TestPRTitleData struct {
	// PRs names the PRs tested: "#12, #15, #16", or past three the first
	// two and how many more ("#12, #15 (+2)").
	PRs string
	// Numbers are the PRs tested, in queue order; Branch is the target
	// branch; TestBranch the run's branch; Bisection marks a part of a
	// failed batch.
	Numbers    []int
	Branch     string
	TestBranch string
	Bisection  bool
}

// ParseTestPRTitle parses a test PR title template and checks that it
// renders a non-empty title naming something other than the test branch.
func ParseTestPRTitle(text string) (*template.Template, error) {
	t, err := template.New("test PR title").Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("invalid test PR title template: %w", err)
	}
	sample := TestPRTitleData{PRs: "#12, #15 (+2)", Numbers: []int{12, 15, 16, 17}, Branch: "main",
		TestBranch: "mq-merge/pr-12/x", Bisection: false}
	var b strings.Builder
	if err := t.Execute(&b, sample); err != nil {
		return nil, fmt.Errorf("invalid test PR title template: %w", err)
	}
	if title := strings.TrimSpace(b.String()); title == "" || title == sample.TestBranch {
		return nil, errors.New("invalid test PR title template: it must render a title naming the PRs, not nothing or the bare branch name")
	}
	return t, nil
}

var defaultTestPRTitle = template.Must(ParseTestPRTitle(DefaultTestPRTitle))

// prNames formats the PRs a test PR tests for its title.
func prNames(nums []int) string {
	if len(nums) <= 3 {
		return queue.PRList(nums)
	}
	return fmt.Sprintf("%s (+%d)", queue.PRList(nums[:2]), len(nums)-2)
}

// testPRsDue brings one batch of due test PRs up to date (those that failed
// transiently earlier in the pass left out) and reports how many it
// handled.
func (r *Reconciler) testPRsDue(ctx context.Context) (int, error) {
	due, err := r.store.DueRunSurfaces(ctx, r.now(), r.batchSize())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, rs := range due {
		key := "run:" + rs.RunID
		if r.skipped(key) || n == reconcileBatch {
			continue
		}
		n++
		if err := r.tried(key, r.testPR(ctx, rs)); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// testPR opens a run's draft test PR while the run is open and its branch
// published, keeps its title and body current, and closes it once the run
// is closed. An open whose answer was lost is found by its head branch
// before opening again.
func (r *Reconciler) testPR(ctx context.Context, rs queue.RunSurface) error {
	run, err := r.store.GetRun(ctx, rs.RunID)
	if errors.Is(err, queue.ErrNotFound) {
		return nil // deleted with its queue
	}
	if err != nil {
		return fmt.Errorf("failed to load run %s: %w", rs.RunID, err)
	}
	q, err := r.store.GetQueueByID(ctx, run.QueueID)
	if err != nil {
		return fmt.Errorf("failed to load queue %d: %w", run.QueueID, err)
	}
	log := zerolog.Ctx(ctx).With().Str("queue", q.Key.String()).Str("run", run.ID).Logger()
	ctx = log.WithContext(ctx)
	serving := rs.Want
	w, ok := r.gh.(queue.TestPRWriter)
	if !ok {
		rs.Done = serving // this port opens no test PRs
		return r.store.SaveRunSurface(ctx, rs)
	}
	if err := r.writeTestPR(ctx, w, q, run, &rs); err != nil {
		giveUp, err := r.failed(ctx, "update the test PR of run "+run.ID, &rs.Attempts, &rs.NextAttemptAt, &rs.LastError, err)
		if err != nil {
			return err
		}
		if giveUp {
			rs.Done = serving
		}
		return r.store.SaveRunSurface(ctx, rs)
	}
	rs.Done, rs.Attempts, rs.LastError = serving, 0, ""
	rs.NextAttemptAt = time.Time{}
	return r.store.SaveRunSurface(ctx, rs)
}

func (r *Reconciler) writeTestPR(ctx context.Context, w queue.TestPRWriter, q *queue.Queue, run *queue.TestRun, rs *queue.RunSurface) error {
	save := func() error { return r.store.SaveRunSurface(ctx, *rs) }
	repo := q.Key.Repo
	if rs.PRNumber == 0 && rs.Creating {
		n, err := w.FindPRByHead(ctx, repo, run.Branch)
		if err != nil {
			return fmt.Errorf("failed to look for the test PR: %w", err)
		}
		rs.PRNumber, rs.Creating = n, false
		if err := save(); err != nil {
			return err
		}
	}
	if run.Closed || run.SHA == "" {
		if rs.PRNumber == 0 || rs.Closed {
			return nil
		}
		if err := w.ClosePR(ctx, repo, rs.PRNumber); err != nil {
			return fmt.Errorf("failed to close test PR #%d: %w", rs.PRNumber, err)
		}
		rs.Closed = true
		return save()
	}
	title, body, err := r.testPRText(ctx, q, run)
	if err != nil {
		return err
	}
	h := digest(title + "\x00" + body)
	if rs.PRNumber == 0 {
		rs.Creating = true
		if err := save(); err != nil {
			return err
		}
		n, err := w.OpenDraftPR(ctx, repo, run.Branch, q.Key.Branch, title, body)
		if err != nil {
			return fmt.Errorf("failed to open the test PR: %w", err)
		}
		rs.PRNumber, rs.PRHash, rs.Creating = n, h, false
		log := zerolog.Ctx(ctx)
		log.Info().Int("test_pr", n).Msg("test PR opened")
		return save()
	}
	if h == rs.PRHash {
		return nil
	}
	if err := w.EditPR(ctx, repo, rs.PRNumber, title, body); err != nil {
		return fmt.Errorf("failed to edit test PR #%d: %w", rs.PRNumber, err)
	}
	rs.PRHash = h
	return save()
}

// testPRText renders a test PR's title (the configured template) and body:
// the PRs it tests, those ahead it is built on, and links. The body is
// markdown: PR titles and branch names are escaped (package textsafe), so
// a title mentions, links and shows nothing.
func (r *Reconciler) testPRText(ctx context.Context, q *queue.Queue, run *queue.TestRun) (string, string, error) {
	data := TestPRTitleData{PRs: prNames(run.PRNumbers), Numbers: run.PRNumbers, Branch: q.Key.Branch,
		TestBranch: run.Branch, Bisection: run.Bisection}
	var t strings.Builder
	if err := r.titleTemplate.Execute(&t, data); err != nil {
		return "", "", fmt.Errorf("failed to render the test PR title: %w", err)
	}
	var b strings.Builder
	what := "Merge queue test run"
	if run.Bisection {
		what = "Merge queue bisection run (part of a failed batch)"
	}
	branch := textsafe.MarkdownCode(q.Key.Branch)
	fmt.Fprintf(&b, "%s for %s: this draft PR only carries CI for the run; it is closed when the run ends. Do not merge it.\n\n", what, branch)
	b.WriteString("**Tested**:\n")
	for i, n := range run.PRNumbers {
		title := ""
		if i < len(run.EntryIDs) {
			if e, err := r.store.GetEntryByID(ctx, run.EntryIDs[i]); err == nil {
				title = " " + textsafe.Markdown(e.PR.Title)
			}
		}
		fmt.Fprintf(&b, "- #%d%s\n", n, title)
	}
	var ahead []int
	for _, id := range run.Ahead {
		if e, err := r.store.GetEntryByID(ctx, id); err == nil {
			ahead = append(ahead, e.PRNumber)
		}
	}
	if len(ahead) > 0 {
		fmt.Fprintf(&b, "\n**Built on** %s at %s with the PRs ahead: %s\n", branch, queue.ShortSHA(run.BaseSHA), queue.PRList(ahead))
	} else {
		fmt.Fprintf(&b, "\n**Built on** %s at %s\n", branch, queue.ShortSHA(run.BaseSHA))
	}
	fmt.Fprintf(&b, "\nTest run %s, branch %s", textsafe.MarkdownCode(run.ID), textsafe.MarkdownCode(run.Branch))
	if r.publicURL != "" && len(run.PRNumbers) > 0 {
		fmt.Fprintf(&b, " · [queue](%s%s)", r.publicURL, readside.PRPagePath(q.Key.Repo, run.PRNumbers[0]))
	}
	b.WriteString("\n")
	return strings.TrimSpace(t.String()), b.String(), nil
}
