package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/palantir/go-githubapp/githubapp"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/textsafe"
)

// CheckRunHandler reports check runs to the queue (created, completed and
// rerequested). The queue's own check run ("Merge Queue (<branch>)") is
// ignored: it reports on the queue, it is not a CI result.
type CheckRunHandler struct{ deps }

var _ githubapp.EventHandler = (*CheckRunHandler)(nil)

// NewCheckRunHandler builds the check_run handler.
func NewCheckRunHandler(cfg Config, svc Service) *CheckRunHandler {
	return &CheckRunHandler{newDeps(cfg, svc, nil)}
}

// ghCheckRun is the part of a check run the queue reads.
type ghCheckRun struct {
	Name        string `json:"name"`
	HeadSHA     string `json:"head_sha"`
	Status      string `json:"status"`
	Conclusion  string `json:"conclusion"`
	HTMLURL     string `json:"html_url"`
	DetailsURL  string `json:"details_url"`
	StartedAt   ghTime `json:"started_at"`
	CompletedAt ghTime `json:"completed_at"`
}

// Handles implements githubapp.EventHandler.
func (h *CheckRunHandler) Handles() []string { return []string{"check_run"} }

// Handle implements githubapp.EventHandler.
func (h *CheckRunHandler) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var ev struct {
		ghEvent
		CheckRun *ghCheckRun `json:"check_run"`
	}
	if err := decode(eventType, payload, &ev); err != nil {
		return err
	}
	switch ev.Action {
	case "created", "completed", "rerequested":
	default:
		return nil
	}
	run := ev.CheckRun
	if run == nil || run.HeadSHA == "" || run.Name == "" {
		return Permanent(errors.New("check_run payload has no head_sha or name"))
	}
	if strings.HasPrefix(run.Name, OwnCheckRunPrefix) {
		return nil
	}
	repo, ghRepo, err := repoOf(h.cfg, ev.Repository)
	if err != nil {
		return err
	}
	ctx, _ = githubapp.PrepareRepoContext(ctx, ev.installationID(), ghRepo)
	c := checkRunResult(run)
	if err := h.svc.OnCheck(ctx, repo, c); err != nil {
		return fmt.Errorf("failed to record check run %q on %s: %w", c.Name, c.SHA, err)
	}
	return nil
}

// checkRunResult normalises a check run: not completed is pending;
// success, neutral and skipped pass; every other conclusion fails. UpdatedAt
// is when it completed, or when it started while it runs. URL is the
// html_url, else the details_url, that textsafe.CIURL accepts ("" if none).
func checkRunResult(run *ghCheckRun) queue.CheckResult {
	c := queue.CheckResult{
		SHA:       run.HeadSHA,
		Kind:      queue.KindCheckRun,
		Name:      run.Name,
		State:     queue.CheckPending,
		Raw:       run.Status,
		URL:       textsafe.CIURL(run.HTMLURL),
		UpdatedAt: run.StartedAt.Time,
	}
	if c.URL == "" {
		c.URL = textsafe.CIURL(run.DetailsURL)
	}
	if run.Status != "completed" {
		return c
	}
	c.Raw = run.Conclusion
	if !run.CompletedAt.IsZero() {
		c.UpdatedAt = run.CompletedAt.Time
	}
	switch run.Conclusion {
	case "success", "neutral", "skipped":
		c.State = queue.CheckSuccess
	default:
		c.State = queue.CheckFailure
	}
	return c
}
