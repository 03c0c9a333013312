package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// impactedTargets is the request's impactedTargets: a JSON array of target
// names (possibly empty, possibly 100k long), or the string "ALL" (also
// "IMPACTS_ALL", any case) for "impacts every target". null and absent are
// missing.
type impactedTargets struct {
	set  bool
	all  bool
	list []string
}

// UnmarshalJSON accepts ["//a", …], [], "ALL", "IMPACTS_ALL" and null.
func (t *impactedTargets) UnmarshalJSON(b []byte) error {
	raw := strings.TrimSpace(string(b))
	switch {
	case raw == "null":
		*t = impactedTargets{}
		return nil
	case strings.HasPrefix(raw, `"`):
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return badRequestf("invalid field impactedTargets: %v", err)
		}
		if !strings.EqualFold(s, "ALL") && !strings.EqualFold(s, "IMPACTS_ALL") {
			return badRequestf(`invalid field impactedTargets: must be a list of targets or "ALL", got %q`, truncate(s))
		}
		*t = impactedTargets{set: true, all: true}
		return nil
	case strings.HasPrefix(raw, "["):
		var list []string
		if err := json.Unmarshal(b, &list); err != nil {
			return badRequestf("invalid field impactedTargets: must be an array of strings")
		}
		if list == nil {
			list = []string{}
		}
		*t = impactedTargets{set: true, list: list}
		return nil
	}
	return badRequestf(`invalid field impactedTargets: must be a list of targets or "ALL", got %s`, truncate(raw))
}

// targetsPR is the pr object of setImpactedTargets: number and head SHA.
type targetsPR struct {
	Number prNumber `json:"number"`
	SHA    string   `json:"sha"`
}

type setImpactedTargetsRequest struct {
	queueRequest
	PR              targetsPR       `json:"pr"`
	ImpactedTargets impactedTargets `json:"impactedTargets"`
}

// validate checks the PR fields and returns the normalised (lower-case)
// SHA: a full commit SHA, 40 (SHA-1) or 64 (SHA-256) hex digits, since the
// queue compares it with the PR's head.
func (req *setImpactedTargetsRequest) validate() (string, error) {
	if err := req.queueRequest.validate(); err != nil {
		return "", err
	}
	if req.PR.Number == 0 {
		return "", badRequestf("pr.number is required")
	}
	sha := strings.ToLower(strings.TrimSpace(req.PR.SHA))
	if sha == "" {
		return "", badRequestf("pr.sha is required")
	}
	if (len(sha) != 40 && len(sha) != 64) || strings.Trim(sha, "0123456789abcdef") != "" {
		return "", badRequestf("invalid field pr.sha: must be a full commit SHA (40 hex digits), got %q", truncate(req.PR.SHA))
	}
	if !req.ImpactedTargets.set {
		return "", badRequestf(`impactedTargets is required: a list of targets, [] or "ALL"`)
	}
	return sha, nil
}

// setImpactedTargets (POST /v1/setImpactedTargets) stores the targets a PR
// impacts for one head SHA; the PR need not be submitted yet, but GitHub
// must know it. 200 {}; 400 for an invalid field (before any GitHub call,
// also for ForkedRunHeader requests); 404 if the queue or the PR is
// unknown. Authenticated by a token, or for PRs from forks by
// ForkedRunHeader (401 unless GitHub confirms the run is the fork PR's
// own; 403 over targets a token set for the same SHA; 404 for an unknown
// queue and 429 past ForkRunLimits, both before any GitHub call).
func (a *API) setImpactedTargets(w http.ResponseWriter, r *http.Request) error {
	var req setImpactedTargetsRequest
	if err := readJSON(w, r, &req); err != nil {
		return err
	}
	sha, err := req.validate()
	if err != nil {
		return err
	}
	ctx := r.Context()
	n := int(req.PR.Number)
	var key queue.QueueKey
	// The PR is read from GitHub once: by the forked run's confirmation, or
	// else by the service (VerifyPR).
	verifyPR := true
	source := queue.TargetsFromToken
	if runID := forkedRunFrom(ctx); runID != 0 {
		if key, err = a.resolveKey(req.queueRequest); err != nil {
			return err
		}
		if err := a.confirmForkedRun(ctx, runID, key, n, sha); err != nil {
			return err
		}
		verifyPR, source = false, queue.TargetsFromForkRun
	} else if key, err = a.queueKey(ctx, req.queueRequest); err != nil {
		return err
	}
	err = a.svc.SetImpactedTargets(ctx, queue.TargetsUpdate{Key: key, PRNumber: n, SHA: sha,
		All: req.ImpactedTargets.all, List: req.ImpactedTargets.list, VerifyPR: verifyPR, Source: source})
	if err != nil {
		var ie *queue.InputError
		switch {
		case errors.As(err, &ie):
			return ie
		case errors.Is(err, queue.ErrPRNotFound):
			return prNotOnGitHub(key.Repo, n)
		case errors.Is(err, queue.ErrNotFound):
			return queueNotFound(key)
		case errors.Is(err, queue.ErrTargetsSetByToken):
			return &apiError{Status: http.StatusForbidden, Msg: fmt.Sprintf("the impacted targets of pull request #%d at %s were set "+
				"with an API token; a forked workflow run cannot replace them (upload with a token, or push a new commit)", n, queue.ShortSHA(sha))}
		}
		return fmt.Errorf("failed to set impacted targets of #%d in %s: %w", n, key, err)
	}
	loggerFrom(ctx).Debug().Int("pr", n).Bool("all", req.ImpactedTargets.all).
		Int("targets", len(req.ImpactedTargets.list)).Msg("impacted targets stored")
	return writeEmpty(w)
}

// prNotOnGitHub is the 404 for a pull request GitHub does not know.
func prNotOnGitHub(repo queue.Repo, n int) error {
	return notFoundf("pull request #%d not found on GitHub in %s", n, repo.FullName())
}
