package githubx

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Observer is told about every request a Client sends to GitHub, each
// attempt apart (a retried call is seen once per try). It is how the
// application counts GitHub calls without this package knowing about
// metrics. ObserveGitHubCall runs on the caller's goroutine: it must be
// quick and safe for concurrent use. A Call never holds a token, a header
// value other than the rate-limit figures, or a repository's name.
type Observer interface {
	ObserveGitHubCall(Call)
}

// Call is one attempt of one request to GitHub.
type Call struct {
	// Method is the HTTP method.
	Method string
	// Endpoint is the request path as a route template, e.g.
	// "/repos/{owner}/{repo}/pulls/{number}" (see Endpoint): owners,
	// names, numbers and refs never appear, so label sets stay bounded.
	Endpoint string
	// Status is the response's status code; 0 when no response came back
	// (a network error, a timeout, a refused path).
	Status int
	// Duration is how long the attempt took, up to the response headers.
	Duration time.Duration
	// Attempt is 1 for the first try, 2 for the first retry, and so on.
	Attempt int
	// Retry is why the transport will try again ("server_error",
	// "network_error", "rate_limit"), or "" when this attempt is final.
	Retry string
	// RateLimit is what the response said about the rate limit.
	RateLimit RateLimit
}

// RateLimit is GitHub's rate-limit report on one response.
type RateLimit struct {
	// Known is false when the response carried no x-ratelimit-remaining.
	Known bool
	// Resource is x-ratelimit-resource ("core", "graphql", "search", …;
	// anything unexpected is "other").
	Resource string
	// Remaining and Limit are x-ratelimit-remaining and -limit.
	Remaining, Limit int
}

// Retry reasons reported in Call.Retry.
const (
	RetryServerError  = "server_error"
	RetryNetworkError = "network_error"
	RetryRateLimit    = "rate_limit"
)

// WithObserver makes the client report every attempt to o.
func WithObserver(o Observer) Option {
	return func(opts *options) { opts.observer = o }
}

// rateLimitOf reads the rate-limit headers of resp (nil: unknown).
func rateLimitOf(resp *http.Response) RateLimit {
	if resp == nil {
		return RateLimit{}
	}
	remaining, err := strconv.Atoi(resp.Header.Get("X-Ratelimit-Remaining"))
	if err != nil {
		return RateLimit{}
	}
	limit, _ := strconv.Atoi(resp.Header.Get("X-Ratelimit-Limit"))
	res := strings.ToLower(resp.Header.Get("X-Ratelimit-Resource"))
	switch res {
	case "core", "graphql", "search", "code_search", "integration_manifest", "actions_runner_registration", "scim", "source_import", "code_scanning_upload", "dependency_snapshots", "audit_log":
	case "":
		res = "core"
	default:
		res = "other"
	}
	return RateLimit{Known: true, Resource: res, Remaining: remaining, Limit: limit}
}

// maxEndpointSegments bounds a template's length; longer paths end in
// "{…}".
const maxEndpointSegments = 10

// literals are the fixed words of the GitHub REST paths; every other
// segment is a value and becomes a placeholder named after the word before
// it (paramNames, else "{id}").
var literals = toSet("repos", "pulls", "issues", "comments", "labels", "git", "refs", "ref", "commits",
	"check-runs", "check-suites", "statuses", "status", "branches", "protection", "required_status_checks",
	"compare", "merges", "merge", "contents", "actions", "runs", "workflows", "jobs", "installation",
	"installations", "app", "access_tokens", "app-manifests", "conversions", "collaborators", "permission",
	"reviews", "requested_reviewers", "trees", "blobs", "tags", "users", "orgs", "user", "graphql",
	"rate_limit", "files", "update-branch", "assignees", "events", "timeline", "annotations", "rerun",
	"rerun-failed-jobs", "cancel", "logs", "artifacts", "pulls_url", "enforce_admins", "required_pull_request_reviews",
	"restrictions", "rules", "rulesets", "hooks", "deliveries", "attempts", "reactions", "dispatches", "teams", "members",
	"memberships", "zen", "meta", "octocat", "repositories", "search", "issue", "lock", "check-run", "pages",
	"login", "oauth", "access_token")

// paramNames name the value that follows a literal.
var paramNames = map[string]string{
	"pulls": "number", "issues": "number", "comments": "comment_id", "labels": "name", "commits": "ref",
	"check-runs": "check_run_id", "check-suites": "check_suite_id", "statuses": "ref", "branches": "branch",
	"runs": "run_id", "workflows": "workflow_id", "jobs": "job_id", "installations": "installation_id",
	"app-manifests": "code", "collaborators": "username", "reviews": "review_id", "trees": "sha", "blobs": "sha",
	"tags": "sha", "users": "username", "orgs": "org", "hooks": "hook_id", "deliveries": "delivery_id",
	"artifacts": "artifact_id", "teams": "team_slug", "members": "username", "rulesets": "ruleset_id",
	"attempts": "attempt_number", "annotations": "check_run_id",
}

// restParams are literals whose value may span several segments: the rest
// of the path is one placeholder.
var restParams = map[string]string{"ref": "ref", "refs": "ref", "compare": "basehead", "contents": "path"}

func toSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// Endpoint turns a GitHub API path (already stripped of the API's base
// path) into a route template: "/repos/octo/widgets/pulls/12" becomes
// "/repos/{owner}/{repo}/pulls/{number}". Words GitHub's paths use are
// kept; anything else is a placeholder, so the result is one of a bounded
// set whatever the path holds.
func Endpoint(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) == 1 && segs[0] == "" {
		return "/"
	}
	var out []string
	prev := ""
	for i := 0; i < len(segs); i++ {
		if len(out) >= maxEndpointSegments {
			out = append(out, "{…}")
			break
		}
		s := segs[i]
		switch {
		case s == "repos" && i == 0 && len(segs) >= 3:
			out = append(out, "repos", "{owner}", "{repo}")
			i += 2
			prev = "{repo}"
			continue
		case literals[s]:
			out = append(out, s)
			if name, ok := restParams[s]; ok && i+1 < len(segs) {
				out = append(out, "{"+name+"}")
				i = len(segs)
			}
			prev = s
			continue
		}
		name := paramNames[prev]
		if name == "" {
			name = "id"
		}
		out = append(out, "{"+name+"}")
		prev = "{" + name + "}"
	}
	return "/" + strings.Join(out, "/")
}

// endpointOf is req's route template, relative to whichever of the API
// base paths (REST, GraphQL) it is under.
func (b basePaths) endpointOf(u *url.URL) string {
	p := u.Path
	if b.graphql != "" && strings.TrimRight(p, "/") == b.graphql {
		return "/graphql"
	}
	if b.rest != "" {
		p = strings.TrimPrefix(p, b.rest)
	}
	return Endpoint(p)
}

// basePaths are the URL paths GitHub's API lives under ("" or "/api/v3"
// for REST, "/graphql" or "/api/graphql" for GraphQL).
type basePaths struct{ rest, graphql string }

func newBasePaths(cfg Config) basePaths {
	var b basePaths
	if u, err := url.Parse(cfg.V3APIURL); err == nil {
		b.rest = strings.TrimRight(u.Path, "/")
	}
	if u, err := url.Parse(cfg.V4APIURL); err == nil {
		b.graphql = strings.TrimRight(u.Path, "/")
	}
	return b
}
